/* loom/abi.h — the C ABI of every kernel that loom generates.
 *
 * `loom compile prog.loom -o DIR` writes DIR/<entry>.cu and DIR/<entry>.h. The header includes this
 * file and declares two functions:
 *
 *   int loom_<entry>(loom_tensor <t1>, ..., loom_tensor <tn>, <scalars>..., cudaStream_t stream);
 *   const loom_kernel_info* loom_<entry>_info(void);
 *
 * Tensor parameters come first, in the entry task's declaration order; then its scalar parameters
 * in declaration order (f32 -> float, integers -> int64_t); then the stream. The launcher checks
 * every descriptor against the kernel's requirements (the metadata below), builds its TMA
 * descriptors and launches on `stream`. It returns LOOM_OK or one of the LOOM_ERR_* codes and never
 * aborts. The launch is asynchronous: a fault inside the kernel surfaces, as for any CUDA launch,
 * at the caller's next synchronizing call.
 *
 * This header is C99 and C++ (any version since C++11) and depends only on <stdint.h> and the CUDA
 * runtime API header (for cudaStream_t). docs/artifact.md is the user guide; its test is
 * examples/consumer_cmake (C++) and tests/gpu/gemm_correctness.cu.
 */
#ifndef LOOM_ABI_H
#define LOOM_ABI_H

#include <stdint.h>
#include <cuda_runtime_api.h> /* cudaStream_t */

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a struct below changes layout or an enumerator changes value. */
#define LOOM_ABI_VERSION 1

/* The largest tensor rank a descriptor can hold. */
#define LOOM_MAX_RANK 5

/* Element types. The values are part of the ABI; 0 is deliberately invalid so that a
 * zero-initialized descriptor is rejected (LOOM_ERR_DTYPE) rather than misread. */
typedef enum loom_dtype {
  LOOM_DTYPE_INVALID = 0,
  LOOM_BF16 = 1,     /* bfloat16: 1 sign, 8 exponent, 7 mantissa bits */
  LOOM_F16 = 2,      /* IEEE binary16 */
  LOOM_F32 = 3,      /* IEEE binary32 */
  LOOM_F64 = 4,      /* IEEE binary64 */
  LOOM_I8 = 5,
  LOOM_U8 = 6,
  LOOM_I32 = 7,
  LOOM_I64 = 8,
  LOOM_FP8_E4M3 = 9, /* OCP fp8, 4 exponent / 3 mantissa bits (cuda_fp8.h __nv_fp8_e4m3) */
  LOOM_FP8_E5M2 = 10 /* OCP fp8, 5 exponent / 2 mantissa bits (cuda_fp8.h __nv_fp8_e5m2) */
} loom_dtype;

/* Size in bytes of one element of `dtype`; 0 for an unknown value. */
static inline int64_t loom_dtype_size(int dtype) {
  switch (dtype) {
    case LOOM_BF16: case LOOM_F16: return 2;
    case LOOM_F32: case LOOM_I32: return 4;
    case LOOM_F64: case LOOM_I64: return 8;
    case LOOM_I8: case LOOM_U8: case LOOM_FP8_E4M3: case LOOM_FP8_E5M2: return 1;
    default: return 0;
  }
}

/* The name loom's language uses for `dtype` ("bf16", "f32", ...); "invalid" for an unknown value. */
static inline const char* loom_dtype_name(int dtype) {
  switch (dtype) {
    case LOOM_BF16: return "bf16";
    case LOOM_F16: return "f16";
    case LOOM_F32: return "f32";
    case LOOM_F64: return "f64";
    case LOOM_I8: return "i8";
    case LOOM_U8: return "u8";
    case LOOM_I32: return "i32";
    case LOOM_I64: return "i64";
    case LOOM_FP8_E4M3: return "f8e4m3";
    case LOOM_FP8_E5M2: return "f8e5m2";
    default: return "invalid";
  }
}

/* A strided view of device memory, passed by value.
 *
 * Element (i0, ..., i_{rank-1}) lives at
 *   (char*)data + loom_dtype_size(dtype) * (i0 * stride[0] + ... + i_{rank-1} * stride[rank-1]).
 * Dimension 0 is the outermost; for a row-major M x N matrix shape = {M, N}, stride = {ld, 1}.
 * Entries at index >= rank are ignored (the constructors below set them to 0).
 *
 * What a generated kernel requires (its metadata says which):
 *   - rank and dtype equal to the entry task's declaration;
 *   - extents that agree wherever the task names the same dimension ("M" of C and "M" of A);
 *   - stride[rank-1] == 1 (the innermost dimension is contiguous);
 *   - `data` and every other stride * element size a multiple of align_bytes (16 for a kernel
 *     that only has TMA loads; the element size when it has an async-copy variant, which runs
 *     calls the TMA cannot address);
 *   - extents >= 0.
 * Tensors the kernel writes must not overlap tensors it reads (no aliasing between arguments). */
typedef struct loom_tensor {
  void* data;                      /* device pointer to element (0, ..., 0) */
  int32_t rank;                    /* number of dimensions, 1 .. LOOM_MAX_RANK */
  int32_t dtype;                   /* a loom_dtype value */
  int64_t shape[LOOM_MAX_RANK];    /* extents, outermost first */
  int64_t stride[LOOM_MAX_RANK];   /* in elements (not bytes), outermost first */
} loom_tensor;

/* Return codes of loom_<entry>(). The values are part of the ABI. */
typedef enum loom_status {
  LOOM_OK = 0,
  LOOM_ERR_NULL = 1,       /* a tensor's data pointer is NULL */
  LOOM_ERR_RANK = 2,       /* a tensor's rank differs from the task's declaration */
  LOOM_ERR_DTYPE = 3,      /* a tensor's dtype differs from the kernel's element type */
  LOOM_ERR_SHAPE = 4,      /* an extent is negative, or a named dimension disagrees between tensors */
  LOOM_ERR_ALIGN = 5,      /* a base pointer or outer stride is not a multiple of align_bytes */
  LOOM_ERR_STRIDE = 6,     /* the innermost stride is not 1, or an outer stride is not positive */
  LOOM_ERR_TENSOR_MAP = 7, /* the driver refused a TMA descriptor (cuTensorMapEncode*) */
  LOOM_ERR_LAUNCH = 8,     /* the kernel launch (or setting its attributes) failed */
  LOOM_ERR_SMEM = 9,       /* the device cannot give the kernel the shared memory it needs */
  LOOM_ERR_DEVICE = 10,    /* the current device cannot run the kernel (wrong architecture) */
  LOOM_ERR_MAPPING = 11    /* loom_<entry>_mapping(): the program has no mapping of that index */
} loom_status;

/* A short, static, English description of a return code. Never NULL. */
static inline const char* loom_error_string(int status) {
  switch (status) {
    case LOOM_OK: return "success";
    case LOOM_ERR_NULL: return "a tensor's data pointer is NULL";
    case LOOM_ERR_RANK: return "a tensor's rank does not match the task declaration";
    case LOOM_ERR_DTYPE: return "a tensor's dtype does not match the kernel's element type";
    case LOOM_ERR_SHAPE: return "tensor extents are negative or disagree on a named dimension";
    case LOOM_ERR_ALIGN: return "a base pointer or stride is not aligned as the kernel requires";
    case LOOM_ERR_STRIDE: return "the innermost stride is not 1 (or an outer stride is not positive)";
    case LOOM_ERR_TENSOR_MAP: return "the driver refused a TMA tensor map";
    case LOOM_ERR_LAUNCH: return "the kernel launch failed";
    case LOOM_ERR_SMEM: return "the device cannot provide the shared memory the kernel needs";
    case LOOM_ERR_DEVICE: return "the current device cannot run this kernel";
    case LOOM_ERR_MAPPING: return "the program has no mapping of that index";
    default: return "unknown loom error code";
  }
}

/* loom_arg_info.kind */
enum { LOOM_ARG_TENSOR = 0, LOOM_ARG_SCALAR = 1 };

/* loom_arg_info.privilege: a bit set, as declared in the task (r, w, rw). */
enum { LOOM_PRIV_NONE = 0, LOOM_PRIV_R = 1, LOOM_PRIV_W = 2, LOOM_PRIV_RW = 3 };

/* One parameter of loom_<entry>(), in call order (tensors, then scalars). */
typedef struct loom_arg_info {
  const char* name;                /* the task parameter's name, e.g. "C" */
  int kind;                        /* LOOM_ARG_TENSOR or LOOM_ARG_SCALAR */
  int dtype;                       /* element type (tensor) or value type (scalar), a loom_dtype */
  int rank;                        /* tensor rank; 0 for a scalar */
  const char* dims[LOOM_MAX_RANK]; /* named extents, e.g. {"M", "K"}; NULL past rank */
  int64_t align_bytes;             /* required alignment of data and of outer strides in bytes
                                      (16 for a TMA operand); 0 for a scalar */
  int privilege;                   /* LOOM_PRIV_R / _W / _RW for tensors; LOOM_PRIV_R for scalars */
} loom_arg_info;

/* What loom_<entry>_info() returns: a pointer to static storage, valid for the process. */
typedef struct loom_kernel_info {
  const char* name;                /* the entry task's name, e.g. "gemm" */
  int num_args;                    /* number of entries in args (the stream is not counted) */
  const loom_arg_info* args;       /* parameters in call order */
  int64_t smem_bytes;              /* dynamic shared memory per block the kernel requests */
  int threads_per_block;           /* block size of the (main) kernel */
} loom_kernel_info;

/* Row-major constructors. `ld` is the distance, in elements, between consecutive rows (>= cols). */
static inline loom_tensor loom_tensor_1d(void* data, int dtype, int64_t n) {
  loom_tensor t;
  int i;
  for (i = 0; i < LOOM_MAX_RANK; ++i) { t.shape[i] = 0; t.stride[i] = 0; }
  t.data = data;
  t.rank = 1;
  t.dtype = dtype;
  t.shape[0] = n;
  t.stride[0] = 1;
  return t;
}

/* A rows x cols matrix whose row r starts at data + r * ld elements. */
static inline loom_tensor loom_tensor_2d(void* data, int dtype, int64_t rows, int64_t cols,
                                         int64_t ld) {
  loom_tensor t = loom_tensor_1d(data, dtype, 0);
  t.rank = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  t.stride[0] = ld;
  t.stride[1] = 1;
  return t;
}

/* `batch` matrices of rows x cols; matrix b starts at data + b * batch_stride elements, its row r at
 * a further r * ld. For densely packed matrices batch_stride = rows * ld. */
static inline loom_tensor loom_tensor_3d(void* data, int dtype, int64_t batch, int64_t rows,
                                         int64_t cols, int64_t ld, int64_t batch_stride) {
  loom_tensor t = loom_tensor_2d(data, dtype, rows, cols, ld);
  t.rank = 3;
  t.shape[0] = batch;
  t.shape[1] = rows;
  t.shape[2] = cols;
  t.stride[0] = batch_stride;
  t.stride[1] = ld;
  t.stride[2] = 1;
  return t;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LOOM_ABI_H */
