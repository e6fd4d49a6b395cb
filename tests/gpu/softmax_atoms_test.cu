// softmax_atoms_test: the runtime atoms of the attention kernels' softmax.
//   * loom::rt::ex2_approx (ex2.approx.ftz.f32) against the host's double-precision exp2 over
//     [-126, 128] (seeded random points plus the edges): relative error below 2^-21 wherever the
//     result is a normal float; exactly 0 for -inf and results below the normal range (flushed);
//     +inf for +inf and from 128 up; NaN for NaN;
//   * loom::rt::pack_pair (two bf16 / f16 values into one b32, low half first) and
//     loom::rt::pair_mask (keep the halves before column n) against the bit patterns.
#include <cmath>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "gpu_test.cuh"
#include "loom/runtime.cuh"

namespace {

__global__ void ex2_kernel(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = loom::rt::ex2_approx(in[i]);
}

template <class T>
__global__ void pack_kernel(const std::uint16_t* bits, std::uint32_t* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  T lo, hi;
  if constexpr (std::is_same<T, __nv_bfloat16>::value) {
    lo = __ushort_as_bfloat16(bits[2 * i]);
    hi = __ushort_as_bfloat16(bits[2 * i + 1]);
  } else {
    lo = __ushort_as_half(bits[2 * i]);
    hi = __ushort_as_half(bits[2 * i + 1]);
  }
  // Column i % 8 of a row whose extent is i / 8 % 10: every col < n / col + 1 < n combination.
  out[i] = loom::rt::pack_pair(lo, hi) & loom::rt::pair_mask(i % 8, (i / 8) % 10);
}

template <class T>
void check_pack(std::mt19937_64& rng, const char* what) {
  const int n = 4096;
  std::vector<std::uint16_t> bits(2 * n);
  for (auto& b : bits) b = static_cast<std::uint16_t>(rng());
  std::uint16_t* dbits = nullptr;
  std::uint32_t* dout = nullptr;
  CUDA_CHECK(cudaMalloc(&dbits, bits.size() * sizeof(std::uint16_t)));
  CUDA_CHECK(cudaMalloc(&dout, n * sizeof(std::uint32_t)));
  CUDA_CHECK(cudaMemcpy(dbits, bits.data(), bits.size() * sizeof(std::uint16_t), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dout, 0xa5, n * sizeof(std::uint32_t)));
  pack_kernel<T><<<n / 256, 256>>>(dbits, dout, n);
  LAUNCH_CHECK();
  std::vector<std::uint32_t> out(n);
  CUDA_CHECK(cudaMemcpy(out.data(), dout, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    const int col = i % 8, ext = (i / 8) % 10;
    const std::uint32_t lo = col < ext ? bits[2 * i] : 0u, hi = col + 1 < ext ? bits[2 * i + 1] : 0u;
    const std::uint32_t want = lo | (hi << 16);
    if (out[i] != want) gputest::fail("%s pack_pair & pair_mask(%d, %d) = 0x%08x, want 0x%08x", what, col, ext, out[i], want);
  }
  CUDA_CHECK(cudaFree(dbits));
  CUDA_CHECK(cudaFree(dout));
}

}  // namespace

int main() {
  gputest::begin("softmax_atoms_test");
  std::mt19937_64 rng(gputest::seed());
  std::uniform_real_distribution<float> dist(-126.0f, 128.0f);
  std::vector<float> x = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 127.0f, 127.75f, 128.0f, 200.0f, 1e30f, -126.0f, -150.0f,
                          -1e30f, -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN()};
  const int n = gputest::quick_mode() ? 4096 : 1 << 20;
  while (static_cast<int>(x.size()) < n) x.push_back(dist(rng));
  float *din = nullptr, *dout = nullptr;
  CUDA_CHECK(cudaMalloc(&din, x.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dout, x.size() * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(din, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dout, 0xff, x.size() * sizeof(float)));  // NaN poison
  ex2_kernel<<<static_cast<int>((x.size() + 255) / 256), 256>>>(din, dout, static_cast<int>(x.size()));
  LAUNCH_CHECK();
  std::vector<float> y(x.size());
  CUDA_CHECK(cudaMemcpy(y.data(), dout, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp2(static_cast<double>(x[i]));
    if (std::isnan(x[i])) {
      if (!std::isnan(y[i])) gputest::fail("ex2(NaN) = %g, want NaN", y[i]);
      continue;
    }
    if (want > std::numeric_limits<float>::max()) {  // +inf, and finite x from 128 up
      if (!(std::isinf(y[i]) && y[i] > 0)) gputest::fail("ex2(%g) = %g, want +inf", x[i], y[i]);
      continue;
    }
    if (std::isinf(x[i])) {
      if (y[i] != 0.0f) gputest::fail("ex2(%g) = %g, want 0", x[i], y[i]);
      continue;
    }
    if (want < std::numeric_limits<float>::min()) {
      if (y[i] != 0.0f) gputest::fail("ex2(%g) = %g, want 0 (flushed)", x[i], y[i]);
      continue;
    }
    const double rel = std::fabs(y[i] - want) / want;
    if (!(rel < std::ldexp(1.0, -21))) gputest::fail("ex2(%.9g) = %.9g, want %.9g (relative error %g)", x[i], y[i], want, rel);
  }
  CUDA_CHECK(cudaFree(din));
  CUDA_CHECK(cudaFree(dout));
  check_pack<__nv_bfloat16>(rng, "bf16");
  check_pack<__half>(rng, "f16");
  return gputest::pass();
}
