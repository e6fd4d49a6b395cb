// invariant_div_test: the SIMT kernels' division through a row divisor's reciprocal (loom_div in
// the prelude of src/tx/simt_cuda.cpp, CPU copy src/tx/invariant_div.h) against the GPU's IEEE
// division (div.rn.f32), bit for bit, for divisor and dividend mantissas in [1, 2): inside the
// fast path's range (2^-60 <= c, |x| <= 2^60) every step scales exactly by powers of two and
// changes sign with x, so these pairs stand for every pair the fast path accepts.
//   invariant_div_test          every 64th divisor mantissa (131072 divisors x 2^23 dividends, ~1 s)
//   invariant_div_test --full   all 2^46 pairs (about a minute on an H100): the proof the docs cite
// LOOM_TEST_QUICK=1: every 4096th divisor mantissa.
#include <cstdint>
#include <cstring>

#include "gpu_test.cuh"

namespace {

__device__ unsigned long long g_wrong;
__device__ unsigned g_example[2];

// The prelude's sequence, character for character (tests/unit/tx_simt_test.cpp checks the
// emitted prelude still holds these lines).
__device__ __forceinline__ float reciprocal_div(float x, float c, float y) {
  const float q = x * y;
  return fmaf(-fmaf(q, c, -x), y, q);
}

__global__ void check(uint32_t first, uint32_t step) {
  const uint32_t cm = first + blockIdx.x * step;
  const float c = __uint_as_float(0x3f800000u | cm);
  const float y = __fdiv_rn(1.0f, c);
  unsigned wrong = 0;
  for (uint32_t xm = threadIdx.x; xm < (1u << 23); xm += blockDim.x) {
    const float x = __uint_as_float(0x3f800000u | xm);
    if (__float_as_uint(reciprocal_div(x, c, y)) != __float_as_uint(__fdiv_rn(x, c))) {
      ++wrong;
      g_example[0] = cm;
      g_example[1] = xm;
    }
  }
  if (wrong) atomicAdd(&g_wrong, wrong);
}

}  // namespace

int main(int argc, char** argv) {
  gputest::begin("invariant_div");
  const bool full = argc > 1 && std::strcmp(argv[1], "--full") == 0;
  const uint32_t step = full ? 1 : gputest::quick_mode() ? 4096 : 64;
  const uint32_t divisors = (1u << 23) / step, chunk = 1u << 16;
  cudaEvent_t a, b;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&b));
  CUDA_CHECK(cudaEventRecord(a));
  for (uint32_t d = 0; d < divisors; d += chunk) {
    check<<<divisors - d < chunk ? divisors - d : chunk, 512>>>(d * step, step);
    LAUNCH_CHECK();
  }
  CUDA_CHECK(cudaEventRecord(b));
  CUDA_CHECK(cudaEventSynchronize(b));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
  unsigned long long wrong = 0;
  unsigned example[2] = {0, 0};
  CUDA_CHECK(cudaMemcpyFromSymbol(&wrong, g_wrong, sizeof wrong));
  CUDA_CHECK(cudaMemcpyFromSymbol(example, g_example, sizeof example));
  std::printf("%u divisor mantissas x 2^23 dividends (%llu pairs) in %.1f s: %llu differ from div.rn.f32\n", divisors,
              static_cast<unsigned long long>(divisors) << 23, ms / 1e3, wrong);
  if (wrong) gputest::fail("e.g. divisor mantissa %#x, dividend mantissa %#x", example[0], example[1]);
  return gputest::pass();
}
