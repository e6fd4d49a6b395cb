// tensor_map_test: loom/host.h. Part 1 (no GPU needed) feeds check_tensor_map one violation of
// each HOPPER-FACTS section 4 constraint and expects its named status code, checks the limits are
// inclusive where the driver's are, and that every status code has its own sentence. Part 2 (GPU)
// encodes valid maps of every rank, dtype and swizzle through the driver entry point, and checks
// that a rejected map is reported as a code, not a crash.
#include <set>
#include <string>

#include "gpu_test.cuh"
#include "loom/host.h"

using gputest::fail;
using loom::Swizzle;
using namespace loom::host;

namespace {

alignas(64) CUtensorMap g_map;
alignas(16) unsigned char g_data[1 << 16];

TensorMapSpec valid_2d() {
  TensorMapSpec s;
  s.dtype = TmaDtype::BF16;
  s.rank = 2;
  s.global_address = g_data;
  s.global_dims[0] = 128;
  s.global_dims[1] = 64;
  s.global_strides[0] = 256;
  s.box_dims[0] = 64;
  s.box_dims[1] = 64;
  s.swizzle = Swizzle::B128;
  return s;
}

struct Expectation {
  const char* what;
  TensorMapSpec spec;
  const CUtensorMap* map;
  int status;
};

void expect(const Expectation& e) {
  const int got = check_tensor_map(e.map, e.spec);
  if (got != e.status)
    fail("check_tensor_map(%s) returned %d (%s), want %d (%s)", e.what, got,
         describe_tensor_map_status(got), e.status, describe_tensor_map_status(e.status));
}

void test_checks() {
  std::vector<Expectation> cases;
  auto add = [&](const char* what, int status, auto mutate,
                 const CUtensorMap* map = &g_map) {
    TensorMapSpec s = valid_2d();
    mutate(s);
    cases.push_back({what, s, map, status});
  };
  add("valid 2d", kTensorMapOk, [](TensorMapSpec&) {});
  add("null map", kTensorMapNullArgument, [](TensorMapSpec&) {}, nullptr);
  add("null address", kTensorMapNullArgument, [](TensorMapSpec& s) { s.global_address = nullptr; });
  add("rank 0", kTensorMapBadRank, [](TensorMapSpec& s) { s.rank = 0; });
  add("rank 6", kTensorMapBadRank, [](TensorMapSpec& s) { s.rank = 6; });
  add("bad dtype", kTensorMapBadDtype,
      [](TensorMapSpec& s) { s.dtype = static_cast<TmaDtype>(7); });
  add("bad swizzle", kTensorMapBadSwizzle,
      [](TensorMapSpec& s) { s.swizzle = static_cast<Swizzle>(9); });
  add("map misaligned", kTensorMapMisalignedMap, [](TensorMapSpec&) {},
      reinterpret_cast<const CUtensorMap*>(reinterpret_cast<const char*>(&g_map) + 32));
  add("address +8", kTensorMapMisalignedAddress,
      [](TensorMapSpec& s) { s.global_address = g_data + 8; });
  add("address +16 ok", kTensorMapOk, [](TensorMapSpec& s) { s.global_address = g_data + 16; });
  add("dim 0", kTensorMapBadGlobalDim, [](TensorMapSpec& s) { s.global_dims[1] = 0; });
  add("dim 2^32 ok", kTensorMapOk,
      [](TensorMapSpec& s) { s.global_dims[1] = std::uint64_t{1} << 32; });
  add("dim 2^32+1", kTensorMapBadGlobalDim,
      [](TensorMapSpec& s) { s.global_dims[1] = (std::uint64_t{1} << 32) + 1; });
  add("stride 264", kTensorMapStrideNotMultipleOf16,
      [](TensorMapSpec& s) { s.global_strides[0] = 264; });
  add("stride 2^40", kTensorMapStrideTooLarge,
      [](TensorMapSpec& s) { s.global_strides[0] = std::uint64_t{1} << 40; });
  add("stride 2^40-16 ok", kTensorMapOk,
      [](TensorMapSpec& s) { s.global_strides[0] = (std::uint64_t{1} << 40) - 16; });
  add("stride of unused dim ignored", kTensorMapOk,
      [](TensorMapSpec& s) { s.global_strides[1] = 3; });
  add("box 0", kTensorMapBadBoxDim, [](TensorMapSpec& s) { s.box_dims[1] = 0; });
  add("box 256 ok", kTensorMapOk, [](TensorMapSpec& s) { s.box_dims[1] = 256; });
  add("box 257", kTensorMapBadBoxDim, [](TensorMapSpec& s) { s.box_dims[1] = 257; });
  add("inner box 60 bf16", kTensorMapInnerBoxNotMultipleOf16,
      [](TensorMapSpec& s) { s.box_dims[0] = 60; });
  add("inner box 72 bf16 > 128B", kTensorMapInnerBoxExceedsSwizzle,
      [](TensorMapSpec& s) { s.box_dims[0] = 72; });
  add("inner box 40 bf16 > 64B", kTensorMapInnerBoxExceedsSwizzle, [](TensorMapSpec& s) {
    s.box_dims[0] = 40;
    s.swizzle = Swizzle::B64;
  });
  add("inner box 32 bf16 = 64B ok", kTensorMapOk, [](TensorMapSpec& s) {
    s.box_dims[0] = 32;
    s.swizzle = Swizzle::B64;
  });
  add("inner box 16 f32 > 32B", kTensorMapInnerBoxExceedsSwizzle, [](TensorMapSpec& s) {
    s.dtype = TmaDtype::F32;
    s.box_dims[0] = 16;
    s.swizzle = Swizzle::B32;
  });
  add("inner box 8 f32 = 32B ok", kTensorMapOk, [](TensorMapSpec& s) {
    s.dtype = TmaDtype::F32;
    s.box_dims[0] = 8;
    s.swizzle = Swizzle::B32;
  });
  add("inner box 256 bf16 no swizzle ok", kTensorMapOk, [](TensorMapSpec& s) {
    s.box_dims[0] = 256;
    s.swizzle = Swizzle::None;
  });
  add("element stride 0", kTensorMapBadElementStride,
      [](TensorMapSpec& s) { s.element_strides[1] = 0; });
  add("element stride 9", kTensorMapBadElementStride,
      [](TensorMapSpec& s) { s.element_strides[0] = 9; });
  add("element stride 8 ok", kTensorMapOk, [](TensorMapSpec& s) { s.element_strides[1] = 8; });
  add("rank 1, no strides", kTensorMapOk, [](TensorMapSpec& s) {
    s.rank = 1;
    s.global_strides[0] = 7;  // unused at rank 1
  });
  add("rank 5 ok", kTensorMapOk, [](TensorMapSpec& s) {
    s.rank = 5;
    for (int d = 2; d < 5; ++d) s.global_dims[d] = 2;
    s.global_strides[1] = 256 * 64;
    s.global_strides[2] = 256 * 64 * 2;
    s.global_strides[3] = 256 * 64 * 4;
    for (int d = 2; d < 5; ++d) s.box_dims[d] = 2;
  });
  add("rank 5, bad stride 3", kTensorMapStrideNotMultipleOf16, [](TensorMapSpec& s) {
    s.rank = 5;
    s.global_strides[1] = 256 * 64;
    s.global_strides[2] = 256 * 64 * 2 + 8;
    s.global_strides[3] = 256 * 64 * 4;
  });
  for (const Expectation& e : cases) expect(e);

  // encode_tensor_map must refuse before touching the driver (runs without a GPU too).
  TensorMapSpec bad = valid_2d();
  bad.box_dims[0] = 72;
  if (const int r = encode_tensor_map(&g_map, bad); r != kTensorMapInnerBoxExceedsSwizzle)
    fail("encode_tensor_map(inner box 72) returned %d, want %d", r,
         kTensorMapInnerBoxExceedsSwizzle);

  // Every code has its own sentence.
  const int codes[] = {kTensorMapOk,
                       kTensorMapNullArgument,
                       kTensorMapBadRank,
                       kTensorMapBadDtype,
                       kTensorMapBadSwizzle,
                       kTensorMapMisalignedMap,
                       kTensorMapMisalignedAddress,
                       kTensorMapBadGlobalDim,
                       kTensorMapStrideNotMultipleOf16,
                       kTensorMapStrideTooLarge,
                       kTensorMapBadBoxDim,
                       kTensorMapInnerBoxNotMultipleOf16,
                       kTensorMapInnerBoxExceedsSwizzle,
                       kTensorMapBadElementStride,
                       kTensorMapDriverUnavailable,
                       kTensorMapDriverRejected};
  std::set<std::string> sentences;
  const std::string unknown = describe_tensor_map_status(-12345);
  for (int c : codes) {
    const char* d = describe_tensor_map_status(c);
    if (d == nullptr || unknown == d) fail("status %d has no description", c);
    if (!sentences.insert(d).second) fail("status %d shares its description: %s", c, d);
  }
  if (TensorMapSpec s = valid_2d(); tensor_map_box_bytes(s) != 64 * 64 * 2)
    fail("tensor_map_box_bytes(64x64 bf16) = %u", tensor_map_box_bytes(s));
  std::printf("  %zu constraint checks and %zu descriptions: ok\n", cases.size(), sentences.size());
}

void test_encode() {
  void* dev = nullptr;
  CUDA_CHECK(cudaMalloc(&dev, 1 << 20));
  int encoded = 0;
  const TmaDtype dtypes[] = {TmaDtype::BF16, TmaDtype::F16, TmaDtype::F32};
  const Swizzle swizzles[] = {Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128};
  for (TmaDtype dt : dtypes) {
    for (Swizzle sw : swizzles) {
      for (int rank = 1; rank <= 5; ++rank) {
        TensorMapSpec s;
        s.dtype = dt;
        s.rank = rank;
        s.global_address = dev;
        const std::uint32_t es = tma_dtype_bytes(dt);
        const std::uint32_t inner = sw == Swizzle::None ? 64 : loom::swizzle_span_bytes(sw) / es;
        std::uint64_t stride = 128 * es;
        for (int d = 0; d < rank; ++d) {
          s.global_dims[d] = d == 0 ? 128 : 4;
          s.box_dims[d] = d == 0 ? inner : 2;
          if (d >= 1) {
            s.global_strides[d - 1] = stride;
            stride *= 4;
          }
        }
        s.swizzle = sw;
        alignas(64) CUtensorMap map;
        const int r = encode_tensor_map(&map, s);
        if (r != kTensorMapOk)
          fail("encode_tensor_map(rank %d, %u-byte elements, swizzle %u bytes): %s", rank, es,
               loom::swizzle_span_bytes(sw), describe_tensor_map_status(r));
        ++encoded;
      }
    }
  }
  // The 2D convenience form.
  alignas(64) CUtensorMap map;
  if (const int r = encode_tensor_map_2d(&map, TmaDtype::BF16, dev, 100, 64, 128, 64, 64,
                                         Swizzle::B128);
      r != kTensorMapOk)
    fail("encode_tensor_map_2d: %s", describe_tensor_map_status(r));
  CUDA_CHECK(cudaFree(dev));
  CUDA_CHECK(cudaGetLastError());
  std::printf("  %d maps encoded by the driver: ok\n", encoded + 1);
}

}  // namespace

int main() {
  gputest::test_name() = "tensor_map_test";
  test_checks();  // host only
  gputest::begin("tensor_map_test");
  test_encode();
  return gputest::pass();
}
