// loom/host.h: host-side helpers for loom-generated launchers: building TMA tensor maps.
//
// A generated launcher describes each tensor with a TensorMapSpec and calls encode_tensor_map(),
// which checks every constraint of cuTensorMapEncodeTiled (HOPPER-FACTS.md section 4, CUDA Driver
// API "Tensor Map Object Management") *before* calling the driver, and reports a violation as a
// status code (never aborts). The driver function is looked up at run time through the CUDA
// runtime (cudaGetDriverEntryPointByVersion), so nothing links -lcuda.
//
// Dimensions are listed innermost (contiguous) first, as TMA wants; global strides are in bytes
// and given for dimensions 1..rank-1 (dimension 0 is contiguous). Tested by
// tests/gpu/tensor_map_test.cu (checks) and the tests/gpu TMA tests (encoding).
#pragma once

#include <cstdint>

#include <cuda.h>  // CUtensorMap and its enums (types only; no driver symbols are linked)
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_runtime.h>

#include "loom/swizzle.h"

namespace loom::host {

// Status codes of the tensor-map helpers. 0 is success; the others start at 1001 so they never
// collide with cudaError_t values (0..999) a launcher may also return.
enum TensorMapStatus : int {
  kTensorMapOk = 0,
  kTensorMapNullArgument = 1001,              // map or global address is null
  kTensorMapBadRank = 1002,                   // rank outside 1..5
  kTensorMapBadDtype = 1003,                  // not one of TmaDtype
  kTensorMapBadSwizzle = 1004,                // not one of loom::Swizzle
  kTensorMapMisalignedMap = 1005,             // CUtensorMap not 64-byte aligned
  kTensorMapMisalignedAddress = 1006,         // global address not 16-byte aligned
  kTensorMapBadGlobalDim = 1007,              // a global dimension is 0 or above 2^32
  kTensorMapStrideNotMultipleOf16 = 1008,     // a global stride is not a multiple of 16 bytes
  kTensorMapStrideTooLarge = 1009,            // a global stride is 2^40 bytes or more
  kTensorMapBadBoxDim = 1010,                 // a box dimension is 0 or above 256
  kTensorMapInnerBoxNotMultipleOf16 = 1011,   // box[0] * element bytes not a multiple of 16
  kTensorMapInnerBoxExceedsSwizzle = 1012,    // box[0] * element bytes above the swizzle width
  kTensorMapBadElementStride = 1013,          // an element stride outside 1..8
  kTensorMapDriverUnavailable = 1014,         // cuTensorMapEncodeTiled not found (no driver?)
  kTensorMapDriverRejected = 1015,            // the driver refused arguments loom accepted
};

// A sentence for a status code (for launchers' error messages). Unknown codes get a generic one.
inline const char* describe_tensor_map_status(int status) {
  switch (status) {
    case kTensorMapOk: return "ok";
    case kTensorMapNullArgument: return "tensor map: the map or the global address is null";
    case kTensorMapBadRank: return "tensor map: rank must be 1..5";
    case kTensorMapBadDtype: return "tensor map: element type must be bf16, f16 or f32";
    case kTensorMapBadSwizzle: return "tensor map: swizzle must be none, 32B, 64B or 128B";
    case kTensorMapMisalignedMap: return "tensor map: the CUtensorMap must be 64-byte aligned";
    case kTensorMapMisalignedAddress:
      return "tensor map: the tensor's global address must be 16-byte aligned";
    case kTensorMapBadGlobalDim: return "tensor map: every extent must be in 1..2^32";
    case kTensorMapStrideNotMultipleOf16:
      return "tensor map: every stride (bytes, dimensions 1..rank-1) must be a multiple of 16";
    case kTensorMapStrideTooLarge: return "tensor map: every stride must be below 2^40 bytes";
    case kTensorMapBadBoxDim: return "tensor map: every box dimension must be in 1..256";
    case kTensorMapInnerBoxNotMultipleOf16:
      return "tensor map: the inner box dimension times the element size must be a multiple of "
             "16 bytes";
    case kTensorMapInnerBoxExceedsSwizzle:
      return "tensor map: the inner box dimension times the element size must not exceed the "
             "swizzle width (32/64/128 bytes)";
    case kTensorMapBadElementStride: return "tensor map: every element stride must be in 1..8";
    case kTensorMapDriverUnavailable:
      return "tensor map: cuTensorMapEncodeTiled is unavailable (no CUDA driver 12.0+?)";
    case kTensorMapDriverRejected:
      return "tensor map: the CUDA driver rejected the tensor map (cuTensorMapEncodeTiled failed)";
    default: return "tensor map: unknown status code";
  }
}

enum class TmaDtype : std::uint8_t { BF16, F16, F32 };

inline constexpr std::uint32_t tma_dtype_bytes(TmaDtype t) {
  return t == TmaDtype::F32 ? 4u : 2u;
}

// Everything cuTensorMapEncodeTiled needs, loom's way: no interleave, tiled mode.
struct TensorMapSpec {
  TmaDtype dtype = TmaDtype::BF16;
  int rank = 2;
  const void* global_address = nullptr;
  std::uint64_t global_dims[5] = {1, 1, 1, 1, 1};     // elements, innermost first
  std::uint64_t global_strides[4] = {0, 0, 0, 0};     // bytes, of dimensions 1..rank-1
  std::uint32_t box_dims[5] = {1, 1, 1, 1, 1};        // elements, innermost first
  std::uint32_t element_strides[5] = {1, 1, 1, 1, 1};  // traversal step per dimension
  Swizzle swizzle = Swizzle::None;
  CUtensorMapL2promotion l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  bool oob_nan_fill = false;  // out-of-bounds loads read NaN instead of zero
};

// Bytes one load of the box writes to shared memory: the expect_tx count of a full barrier (the
// whole box, out-of-bounds fill included). Assumes element strides of 1.
inline constexpr std::uint32_t tensor_map_box_bytes(const TensorMapSpec& s) {
  std::uint32_t bytes = tma_dtype_bytes(s.dtype);
  for (int i = 0; i < s.rank && i < 5; ++i) bytes *= s.box_dims[i];
  return bytes;
}

// Every constraint of cuTensorMapEncodeTiled that loom can check without the driver. Returns
// kTensorMapOk or the first violation found.
inline int check_tensor_map(const CUtensorMap* map, const TensorMapSpec& s) {
  if (map == nullptr || s.global_address == nullptr) return kTensorMapNullArgument;
  if (s.rank < 1 || s.rank > 5) return kTensorMapBadRank;
  if (s.dtype != TmaDtype::BF16 && s.dtype != TmaDtype::F16 && s.dtype != TmaDtype::F32)
    return kTensorMapBadDtype;
  if (s.swizzle != Swizzle::None && s.swizzle != Swizzle::B32 && s.swizzle != Swizzle::B64 &&
      s.swizzle != Swizzle::B128)
    return kTensorMapBadSwizzle;
  if (reinterpret_cast<std::uintptr_t>(map) % 64 != 0) return kTensorMapMisalignedMap;
  if (reinterpret_cast<std::uintptr_t>(s.global_address) % 16 != 0)
    return kTensorMapMisalignedAddress;
  for (int i = 0; i < s.rank; ++i) {
    if (s.global_dims[i] == 0 || s.global_dims[i] > (std::uint64_t{1} << 32))
      return kTensorMapBadGlobalDim;
  }
  for (int i = 0; i + 1 < s.rank; ++i) {
    if (s.global_strides[i] % 16 != 0) return kTensorMapStrideNotMultipleOf16;
    if (s.global_strides[i] >= (std::uint64_t{1} << 40)) return kTensorMapStrideTooLarge;
  }
  for (int i = 0; i < s.rank; ++i) {
    if (s.box_dims[i] == 0 || s.box_dims[i] > 256) return kTensorMapBadBoxDim;
    if (s.element_strides[i] == 0 || s.element_strides[i] > 8) return kTensorMapBadElementStride;
  }
  const std::uint32_t inner_bytes = s.box_dims[0] * tma_dtype_bytes(s.dtype);
  if (inner_bytes % 16 != 0) return kTensorMapInnerBoxNotMultipleOf16;
  if (s.swizzle != Swizzle::None && inner_bytes > swizzle_span_bytes(s.swizzle))
    return kTensorMapInnerBoxExceedsSwizzle;
  return kTensorMapOk;
}

// The driver's cuTensorMapEncodeTiled, looked up once through the runtime; null when unavailable.
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* fp = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fp, 12000,
                                                             cudaEnableDefault, &found);
    if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || fp == nullptr) {
      (void)cudaGetLastError();  // the failed lookup must not surface as the next launch's error
      return PFN_cuTensorMapEncodeTiled_v12000{nullptr};
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fp);
  }();
  return fn;
}

inline CUtensorMapDataType to_cu_dtype(TmaDtype t) {
  switch (t) {
    case TmaDtype::BF16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case TmaDtype::F16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case TmaDtype::F32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  }
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

// Checks `s`, then encodes it into *map. Returns kTensorMapOk or a TensorMapStatus code; *map is
// unspecified on failure.
inline int encode_tensor_map(CUtensorMap* map, const TensorMapSpec& s) {
  if (const int status = check_tensor_map(map, s); status != kTensorMapOk) return status;
  const PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
  if (encode == nullptr) return kTensorMapDriverUnavailable;
  cuuint64_t dims[5];
  cuuint64_t strides[4];
  cuuint32_t box[5];
  cuuint32_t estrides[5];
  for (int i = 0; i < s.rank; ++i) {
    dims[i] = s.global_dims[i];
    box[i] = s.box_dims[i];
    estrides[i] = s.element_strides[i];
    if (i + 1 < s.rank) strides[i] = s.global_strides[i];
  }
  const CUresult r = encode(
      map, to_cu_dtype(s.dtype), static_cast<cuuint32_t>(s.rank),
      const_cast<void*>(s.global_address), dims, strides, box, estrides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, static_cast<CUtensorMapSwizzle>(tma_swizzle_code(s.swizzle)),
      s.l2_promotion,
      s.oob_nan_fill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                     : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? kTensorMapOk : kTensorMapDriverRejected;
}

// The common case: a row-major matrix of `rows` x `cols` elements (cols contiguous) with a row
// pitch of `row_stride_bytes`, loaded in boxes of box_rows x box_cols.
inline int encode_tensor_map_2d(CUtensorMap* map, TmaDtype dtype, const void* global_address,
                                std::uint64_t rows, std::uint64_t cols,
                                std::uint64_t row_stride_bytes, std::uint32_t box_rows,
                                std::uint32_t box_cols, Swizzle swizzle) {
  TensorMapSpec s;
  s.dtype = dtype;
  s.rank = 2;
  s.global_address = global_address;
  s.global_dims[0] = cols;
  s.global_dims[1] = rows;
  s.global_strides[0] = row_stride_bytes;
  s.box_dims[0] = box_cols;
  s.box_dims[1] = box_rows;
  s.swizzle = swizzle;
  return encode_tensor_map(map, s);
}

}  // namespace loom::host
