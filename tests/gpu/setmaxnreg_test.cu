// FIXED (first H100 run): consumers produced NaN. The test, not the atom, was wrong: heavy()
// filled x[] and read x[(i*7) % kWidth] in the same loop, i.e. read elements not yet loaded
// (undefined behaviour; nvcc folded the uninitialized reads to NaN constants, the host read stack
// garbage). x[] is now fully loaded before the permuted read.
// setmaxnreg_test: setmaxnreg_dec / setmaxnreg_inc in a warp-specialized kernel shaped like the
// generated ones: __launch_bounds__(384, 1), warpgroup 0 (producer) drops to 40 registers and
// does light work, warpgroups 1 and 2 (consumers) rise to 232 and run a register-heavy, fully
// unrolled computation (two live arrays of 80 floats, more than the 168 registers the launch
// bound allows at entry). Many blocks run at once. Every output is compared exactly with the
// same computation on the host (explicit fma, so the result is bit-identical).
#include <cmath>

#include "gpu_test.cuh"
#include "loom/runtime.cuh"

using namespace loom::rt;
using gputest::fail;

namespace {

constexpr int kThreads = 384;
constexpr int kConsumers = 256;  // threads in warpgroups 1 and 2
constexpr int kWidth = 80;       // floats per consumer thread
constexpr int kRounds = 6;
constexpr int kProducerRegs = 40;
constexpr int kConsumerRegs = 232;

__host__ __device__ inline float fma_any(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// `#pragma unroll` for the device pass only (the host compiler does not know it).
#if defined(__CUDA_ARCH__)
#define DEVICE_UNROLL _Pragma("unroll")
#else
#define DEVICE_UNROLL
#endif

// The consumer computation, shared by device and host: kWidth inputs to kWidth outputs.
__host__ __device__ inline void heavy(const float* src, float* dst) {
  float x[kWidth];
  float acc[kWidth];
  DEVICE_UNROLL
  for (int i = 0; i < kWidth; ++i) x[i] = src[i];
  // Only after every x[i] is loaded: the permuted read below reaches ahead of i.
  DEVICE_UNROLL
  for (int i = 0; i < kWidth; ++i) acc[i] = x[(i * 7) % kWidth];
  DEVICE_UNROLL
  for (int r = 0; r < kRounds; ++r) {
    DEVICE_UNROLL
    for (int i = 0; i < kWidth; ++i)
      acc[i] = fma_any(acc[i], x[(i + r + 1) % kWidth], acc[(i + 3) % kWidth] * 0.5f);
  }
  DEVICE_UNROLL
  for (int i = 0; i < kWidth; ++i) dst[i] = acc[i] - x[kWidth - 1 - i];
}

__global__ void __launch_bounds__(kThreads, 1)
    setmaxnreg_kernel(const float* in, float* out, int* producer_out) {
  const int wg = warpgroup_index();
  if (wg == 0) {
    setmaxnreg_dec<kProducerRegs>();
    producer_out[blockIdx.x * 128 + threadIdx.x] =
        static_cast<int>(blockIdx.x * 1000 + threadIdx.x * 3 + 1);
  } else {
    setmaxnreg_inc<kConsumerRegs>();
    const int t = static_cast<int>(blockIdx.x) * kConsumers + static_cast<int>(threadIdx.x) - 128;
    heavy(in + static_cast<std::size_t>(t) * kWidth, out + static_cast<std::size_t>(t) * kWidth);
  }
}

}  // namespace

int main() {
  gputest::begin("setmaxnreg_test");
  const int blocks = gputest::quick_mode() ? 4 : 264;  // two waves over 132 SMs
  const std::size_t n = static_cast<std::size_t>(blocks) * kConsumers * kWidth;
  gputest::Rng rng(gputest::seed());
  std::vector<float> in(n);
  for (float& v : in) v = 0.5f + static_cast<float>(rng.below(1 << 16)) / (1 << 16);
  gputest::DeviceBuffer<float> din(n), dout(n);
  gputest::DeviceBuffer<int> dprod(static_cast<std::size_t>(blocks) * 128);
  din.upload(in);
  dout.poison();
  dprod.poison();
  setmaxnreg_kernel<<<blocks, kThreads>>>(din.ptr, dout.ptr, dprod.ptr);
  LAUNCH_CHECK();
  const std::vector<float> out = dout.download();
  const std::vector<int> prod = dprod.download();
  for (int b = 0; b < blocks; ++b) {
    for (int t = 0; t < 128; ++t) {
      const int want = b * 1000 + t * 3 + 1;
      if (prod[b * 128 + t] != want)
        fail("first bad element: producer block %d thread %d wrote %d, want %d", b, t,
             prod[b * 128 + t], want);
    }
  }
  float want[kWidth];
  for (std::size_t t = 0; t < static_cast<std::size_t>(blocks) * kConsumers; ++t) {
    heavy(in.data() + t * kWidth, want);
    for (int i = 0; i < kWidth; ++i) {
      const float got = out[t * kWidth + i];
      if (std::memcmp(&got, &want[i], sizeof got) != 0)
        fail("first bad element: consumer thread %zu (block %zu) output %d: got %.9g, want %.9g",
             t, t / kConsumers, i, got, want[i]);
    }
  }
  std::printf("  %d blocks of 384 threads, producer %d / consumers %d registers: ok\n", blocks,
              kProducerRegs, kConsumerRegs);
  return gputest::pass();
}
