// End-to-end test and benchmark of loom's SIMT kernels from examples/tx (transpose, softmax,
// layernorm; docs/tensor-expressions.md, "Thread mapping"). Built by tests/gpu/e2e/tx_simt.sh
// against the generated .cu files. For every shape: fresh random inputs (seeded from the clock
// unless --seed), outputs poisoned with NaN, the kernel through its C ABI, and a comparison with an
// fp32 CPU reference written here (independent of loom): transpose exact, softmax and layernorm
// within bf16 rounding. Then (unless --no-bench) the median time of 20 runs after 5 warm-ups with
// CUDA events, as GB/s (bytes read once + written once) against cudaMemcpy device-to-device of the
// same bytes, timed in the same process. Exit status 0 only if every check passes.
//   tx_simt_e2e [--small] [--no-bench] [--seed S]
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "layernorm.h"
#include "softmax.h"
#include "transpose.h"

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(2);                                                                      \
    }                                                                                    \
  } while (0)

namespace {

uint64_t g_seed = 0;
int g_fail = 0;

float bf16_round(float x) { return __bfloat162float(__float2bfloat16(x)); }

std::vector<float> random_vec(size_t n, std::mt19937_64& rng, bool bf16) {
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (float& x : v) x = bf16 ? bf16_round(d(rng)) : d(rng);
  return v;
}

// Device buffer of `n` elements (+ slack) holding `v` in f32 or bf16.
void* upload(const std::vector<float>& v, bool bf16, size_t extra = 0) {
  void* p = nullptr;
  const size_t es = bf16 ? 2 : 4;
  CK(cudaMalloc(&p, (v.size() + extra) * es));
  if (bf16) {
    std::vector<__nv_bfloat16> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = __float2bfloat16(v[i]);
    CK(cudaMemcpy(p, h.data(), v.size() * 2, cudaMemcpyHostToDevice));
  } else {
    CK(cudaMemcpy(p, v.data(), v.size() * 4, cudaMemcpyHostToDevice));
  }
  return p;
}
void* poisoned(size_t n, size_t es) {
  void* p = nullptr;
  CK(cudaMalloc(&p, n * es));
  CK(cudaMemset(p, 0xff, n * es));  // NaN in f32 and bf16
  return p;
}
std::vector<float> download(const void* p, size_t n, bool bf16) {
  std::vector<float> out(n);
  if (bf16) {
    std::vector<__nv_bfloat16> h(n);
    CK(cudaMemcpy(h.data(), p, n * 2, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) out[i] = __bfloat162float(h[i]);
  } else {
    CK(cudaMemcpy(out.data(), p, n * 4, cudaMemcpyDeviceToHost));
  }
  return out;
}

// Compares got (rows x cols, row pitch ld) with ref (dense): every element written (no NaN) and
// within atol + rtol |ref|; prints the relative Frobenius error.
void compare(const char* what, const std::vector<float>& got, int64_t rows, int64_t cols, int64_t ld, const std::vector<float>& ref, float rtol,
             float atol) {
  double num = 0, den = 0;
  int64_t bad = 0, nan = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const float g = got[r * ld + c], x = ref[r * cols + c];
      if (std::isnan(g)) ++nan;
      else if (std::fabs(g - x) > atol + rtol * std::fabs(x)) ++bad;
      num += (double(g) - x) * (double(g) - x);
      den += double(x) * x;
    }
  const bool ok = bad == 0 && nan == 0;
  std::printf("%s %s: rel_err %.3g, %lld outside tolerance, %lld unwritten (seed %llu)\n", ok ? "PASS" : "FAIL", what, std::sqrt(num / (den + 1e-30)),
              (long long)bad, (long long)nan, (unsigned long long)g_seed);
  if (!ok) g_fail = 1;
}

template <typename F>
float median_ms(F&& launch) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 5; ++i) launch();
  std::vector<float> t;
  for (int i = 0; i < 20; ++i) {
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// cudaMemcpy device-to-device moving `bytes` in all (half read, half written).
float memcpy_gbs(size_t bytes) {
  void *a = nullptr, *b = nullptr;
  CK(cudaMalloc(&a, bytes / 2));
  CK(cudaMalloc(&b, bytes / 2));
  CK(cudaMemset(a, 1, bytes / 2));
  const float ms = median_ms([&] { CK(cudaMemcpyAsync(b, a, bytes / 2, cudaMemcpyDeviceToDevice)); });
  CK(cudaFree(a));
  CK(cudaFree(b));
  return float(bytes) / (ms * 1e6f);
}

void bench_row(const char* kernel, const char* shape, size_t bytes, float ms) {
  const float gbs = float(bytes) / (ms * 1e6f), copy = memcpy_gbs(bytes);
  std::printf("BENCH | %s | %s | %.1f MB | %.4f ms | %.0f GB/s | memcpy %.0f GB/s | %.2f |\n", kernel, shape, bytes / 1e6, ms, gbs, copy, gbs / copy);
}

void check_call(int rc, const char* what) {
  if (rc != LOOM_OK) {
    std::printf("FAIL %s: loom returned %d (%s)\n", what, rc, loom_error_string(rc));
    g_fail = 1;
  }
}

void transpose_case(int64_t M, int64_t N, bool bench, std::mt19937_64& rng) {
  std::vector<float> a = random_vec(size_t(M * N), rng, false);
  void* da = upload(a, false);
  void* db = poisoned(size_t(M * N), 4);
  loom_tensor A = loom_tensor_2d(da, LOOM_F32, M, N, N), B = loom_tensor_2d(db, LOOM_F32, N, M, M);
  check_call(loom_transpose(A, B, 0), "transpose");
  CK(cudaDeviceSynchronize());
  std::vector<float> ref(size_t(M * N));
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) ref[j * M + i] = a[i * N + j];
  char what[64];
  std::snprintf(what, sizeof what, "transpose %lldx%lld", (long long)M, (long long)N);
  compare(what, download(db, size_t(M * N), false), N, M, M, ref, 0, 0);
  if (bench) bench_row("transpose f32", what + 10, size_t(M * N) * 8, median_ms([&] { loom_transpose(A, B, 0); }));
  CK(cudaFree(da));
  CK(cudaFree(db));
}

// softmax over rows of M x N with row pitch ld >= N (ld != N exercises the scalar fallback).
void softmax_case(int64_t M, int64_t N, int64_t ld, bool bench, std::mt19937_64& rng) {
  std::vector<float> x = random_vec(size_t(M * ld), rng, true);
  void* dx = upload(x, true);
  void* dy = poisoned(size_t(M * ld), 2);
  loom_tensor X = loom_tensor_2d(dx, LOOM_BF16, M, N, ld), Y = loom_tensor_2d(dy, LOOM_BF16, M, N, ld);
  check_call(loom_softmax(X, Y, 0), "softmax");
  CK(cudaDeviceSynchronize());
  std::vector<float> ref(size_t(M * N));
  for (int64_t i = 0; i < M; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < N; ++j) mx = std::max(mx, x[i * ld + j]);
    double s = 0;
    for (int64_t j = 0; j < N; ++j) s += std::exp(double(x[i * ld + j]) - mx);
    for (int64_t j = 0; j < N; ++j) ref[i * N + j] = float(std::exp(double(x[i * ld + j]) - mx) / s);
  }
  char what[64];
  std::snprintf(what, sizeof what, "softmax %lldx%lld%s", (long long)M, (long long)N, ld != N ? " (pitch N+1: scalar path)" : "");
  compare(what, download(dy, size_t(M * ld), true), M, N, ld, ref, 1e-2f, 1e-6f);
  if (bench) bench_row("softmax bf16", what + 8, size_t(M * N) * 4, median_ms([&] { loom_softmax(X, Y, 0); }));
  CK(cudaFree(dx));
  CK(cudaFree(dy));
}

void layernorm_case(int64_t M, int64_t N, int64_t ld, bool bench, std::mt19937_64& rng) {
  std::vector<float> x = random_vec(size_t(M * ld), rng, true), g = random_vec(size_t(N), rng, true), b = random_vec(size_t(N), rng, true);
  void *dx = upload(x, true), *dg = upload(g, true), *db = upload(b, true);
  void* dy = poisoned(size_t(M * ld), 2);
  loom_tensor X = loom_tensor_2d(dx, LOOM_BF16, M, N, ld), Y = loom_tensor_2d(dy, LOOM_BF16, M, N, ld);
  loom_tensor G = loom_tensor_1d(dg, LOOM_BF16, N), Bt = loom_tensor_1d(db, LOOM_BF16, N);
  check_call(loom_layernorm(X, G, Bt, Y, 0), "layernorm");
  CK(cudaDeviceSynchronize());
  std::vector<float> ref(size_t(M * N));
  for (int64_t i = 0; i < M; ++i) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < N; ++j) mean += x[i * ld + j];
    mean /= double(N);
    for (int64_t j = 0; j < N; ++j) var += (x[i * ld + j] - mean) * (x[i * ld + j] - mean);
    var /= double(N);
    for (int64_t j = 0; j < N; ++j) ref[i * N + j] = float((x[i * ld + j] - mean) / std::sqrt(var + 1e-5) * g[j] + b[j]);
  }
  char what[64];
  std::snprintf(what, sizeof what, "layernorm %lldx%lld%s", (long long)M, (long long)N, ld != N ? " (pitch N+1: scalar path)" : "");
  compare(what, download(dy, size_t(M * ld), true), M, N, ld, ref, 1e-2f, 2e-2f);
  if (bench) bench_row("layernorm bf16", what + 10, size_t(M * N) * 4 + size_t(N) * 4, median_ms([&] { loom_layernorm(X, G, Bt, Y, 0); }));
  CK(cudaFree(dx));
  CK(cudaFree(dg));
  CK(cudaFree(db));
  CK(cudaFree(dy));
}

}  // namespace

int main(int argc, char** argv) {
  bool small = false, bench = true;
  g_seed = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--small")) small = true;
    else if (!std::strcmp(argv[i], "--no-bench")) bench = false;
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) g_seed = std::strtoull(argv[++i], nullptr, 10);
  }
  std::mt19937_64 rng(g_seed);
  // Non-tile shapes: partial 32 x 32 tiles, odd row lengths (scalar path), a warp and a block per row.
  transpose_case(67, 45, false, rng);
  softmax_case(67, 45, 45, false, rng);
  layernorm_case(67, 45, 45, false, rng);
  softmax_case(37, 1500, 1501, false, rng);
  layernorm_case(37, 1500, 1501, false, rng);
  if (small) return g_fail;
  transpose_case(1000, 777, false, rng);
  softmax_case(1000, 777, 777, false, rng);
  softmax_case(1000, 3000, 3000, false, rng);
  layernorm_case(1000, 777, 777, false, rng);
  layernorm_case(1000, 3000, 3000, false, rng);
  softmax_case(64, 20000, 20000, false, rng);  // longer than the register row cache: the uncached vector path
  layernorm_case(64, 20000, 20000, false, rng);
  // Large shapes, checked and timed.
  transpose_case(8192, 8192, bench, rng);
  softmax_case(32768, 1024, 1024, bench, rng);
  softmax_case(8192, 8192, 8192, bench, rng);
  layernorm_case(32768, 1024, 1024, bench, rng);
  layernorm_case(8192, 8192, 8192, bench, rng);
  std::printf("%s\n", g_fail ? "SOME CHECKS FAILED" : "ALL CHECKS PASSED");
  return g_fail;
}
