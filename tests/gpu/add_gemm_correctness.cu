// add_gemm_correctness: loom's generated add_gemm (examples/add_gemm: E = A·B + C·D, A: M x K,
// B: K x N, C: M x L, D: L x N, bf16 in, bf16 out, one fp32 accumulator) against a double-precision
// reference on the GPU, computed from the same bf16 inputs. Fresh random inputs each run (seed
// printed), E poisoned (NaN) before the launch, E's row padding checked for stray writes. Relative
// Frobenius error < 1e-2. Every shape through the launcher's pick, then (without --only) every
// mapping by index on three shapes (L = K + 5). Exit 0 only if every run passes.
// With --bench: also times the kernel against cuBLAS (two cublasGemmEx into bf16 temporaries and an
// element-wise add, the unfused baseline; and one cublasGemmEx over K + L, the same work as one
// GEMM) at a few large shapes, median of 20 runs each, and prints the ratios (no pass/fail).
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu \
//          -I$GEN/add_gemm tests/gpu/add_gemm_correctness.cu $GEN/add_gemm/add_gemm.cu \
//          -lcuda -lcublas -o add_gemm_correctness
// Usage: add_gemm_correctness [--only MxNxKxL] [--seed S] [--bench] | --by-index MxNxK [--seed S]
// --by-index: every mapping by index at that shape alone, L = K + 5 (what the sanitizers run).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "add_gemm.h"
#include "e2e_check.cuh"

namespace {

using namespace e2e;

// ref[i, j] = sum_k A[i,k] B[k,j] + sum_l C[i,l] D[l,j], in double.
__global__ void reference(double* ref, const __nv_bfloat16* A, const __nv_bfloat16* B, const __nv_bfloat16* C,
                          const __nv_bfloat16* D, int64_t M, int64_t N, int64_t K, int64_t L, int64_t lda, int64_t ldb,
                          int64_t ldc, int64_t ldd) {
  int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x, i = blockIdx.y;
  if (j >= N || i >= M) return;
  double s = 0;
  for (int64_t k = 0; k < K; ++k) s += double(__bfloat162float(A[i * lda + k])) * __bfloat162float(B[k * ldb + j]);
  for (int64_t l = 0; l < L; ++l) s += double(__bfloat162float(C[i * ldc + l])) * __bfloat162float(D[l * ldd + j]);
  ref[i * N + j] = s;
}

__global__ void add_bf16(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* y, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    out[i] = __float2bfloat16(__bfloat162float(x[i]) + __bfloat162float(y[i]));
}

template <class T>
T* alloc(int64_t n) {
  T* p = nullptr;
  CHECK(cudaMalloc(&p, sizeof(T) * std::max<int64_t>(1, n)));
  return p;
}

struct Problem {
  int64_t M, N, K, L;
  int64_t lda, ldb, ldc, ldd, lde;
  __nv_bfloat16 *A, *B, *C, *D;
  uint16_t* E;
  Problem(int64_t m, int64_t n, int64_t k, int64_t l, uint64_t seed)
      : M(m), N(n), K(k), L(l), lda(pad8(k)), ldb(pad8(n)), ldc(pad8(l)), ldd(pad8(n)), lde(pad8(n)) {
    A = alloc<__nv_bfloat16>(M * lda);
    B = alloc<__nv_bfloat16>(K * ldb);
    C = alloc<__nv_bfloat16>(M * ldc);
    D = alloc<__nv_bfloat16>(L * ldd);
    E = alloc<uint16_t>(M * lde);
    fill<<<264, 256>>>(A, M * lda, seed);
    fill<<<264, 256>>>(B, K * ldb, seed * 3 + 1);
    fill<<<264, 256>>>(C, M * ldc, seed * 5 + 2);
    fill<<<264, 256>>>(D, L * ldd, seed * 7 + 3);
    poison<<<264, 256>>>(E, M * lde);
  }
  ~Problem() {
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaFree(D);
    cudaFree(E);
  }
  // The call's tensors E, A, B, C, D.
  std::array<loom_tensor, 5> tensors() const {
    return {loom_tensor_2d(E, LOOM_BF16, M, N, lde), loom_tensor_2d(A, LOOM_BF16, M, K, lda),
            loom_tensor_2d(B, LOOM_BF16, K, N, ldb), loom_tensor_2d(C, LOOM_BF16, M, L, ldc),
            loom_tensor_2d(D, LOOM_BF16, L, N, ldd)};
  }
  // The launcher's pick (mapping < 0) or mapping `mapping` by index.
  int launch(cudaStream_t s = 0, int mapping = -1) const {
    const auto t = tensors();
    return mapping < 0 ? loom_add_gemm(t[0], t[1], t[2], t[3], t[4], s) : loom_add_gemm_mapping(mapping, t[0], t[1], t[2], t[3], t[4], s);
  }
  int pick() const {
    const auto t = tensors();
    return loom_add_gemm_pick(t[0], t[1], t[2], t[3], t[4], 0);
  }
};

bool run(int64_t M, int64_t N, int64_t K, int64_t L, uint64_t seed, int mapping = -1) {
  Problem p(M, N, K, L, seed);
  double* ref = alloc<double>(M * N);
  Result* res;
  CHECK(cudaMallocManaged(&res, sizeof(Result)));
  *res = Result{};
  reference<<<dim3(unsigned((N + 127) / 128), unsigned(M)), 128>>>(ref, p.A, p.B, p.C, p.D, M, N, K, L, p.lda, p.ldb,
                                                                     p.ldc, p.ldd);
  CHECK(cudaDeviceSynchronize());
  auto t0 = std::chrono::steady_clock::now();
  int rc = p.launch(0, mapping);
  CHECK(cudaDeviceSynchronize());
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  compare<<<dim3(unsigned((p.lde + 255) / 256), unsigned(M)), 256>>>(p.E, ref, M, N, p.lde, res);
  CHECK(cudaDeviceSynchronize());
  double rel = res->ref2 > 0 ? std::sqrt(res->err2 / res->ref2) : std::sqrt(res->err2);
  // The launcher's pick for these arguments is one of the mappings.
  const int pick = p.pick(), mappings = loom_add_gemm_mappings();
  const bool pick_ok = pick >= 0 && pick < mappings;
  bool ok = rc == LOOM_OK && pick_ok && res->nonfinite == 0 && res->stray == 0 && rel < 1e-2;
  const std::string which = mapping < 0 ? "p" + std::to_string(pick) : "m" + std::to_string(mapping);
  std::printf("| %5lld x %5lld x %5lld x %5lld | %s | seed %llu | %s | rc %d, rel err %.3e, non-finite %llu, stray writes %llu, %.2f ms incl. sync\n",
              (long long)M, (long long)N, (long long)K, (long long)L, which.c_str(), (unsigned long long)seed, ok ? "ok  " : "FAIL", rc,
              rel, res->nonfinite, res->stray, ms);
  cudaFree(ref);
  cudaFree(res);
  return ok;
}

// Median time in ms of f() over `reps` runs (after 3 warm-up runs).
template <class F>
double median_ms(F f, int reps = 20) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    CHECK(cudaEventRecord(a));
    f();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Row-major X (m x n) = P (m x k) · Q (k x n) as cuBLAS's column-major X^T = Q^T P^T.
cublasStatus_t gemm(cublasHandle_t h, void* X, int64_t ldx, const void* P, int64_t ldp, const void* Q, int64_t ldq,
                    int64_t m, int64_t n, int64_t k) {
  const float one = 1.0f, zero = 0.0f;
  return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &one, Q, CUDA_R_16BF, int(ldq), P,
                      CUDA_R_16BF, int(ldp), &zero, X, CUDA_R_16BF, int(ldx), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

void bench(int64_t M, int64_t N, int64_t K, int64_t L, cublasHandle_t h) {
  Problem p(M, N, K, L, 1);
  __nv_bfloat16* T1 = alloc<__nv_bfloat16>(M * p.lde);
  __nv_bfloat16* T2 = alloc<__nv_bfloat16>(M * p.lde);
  // One GEMM over K + L: [A | C] (M x (K + L)) times [B ; D] ((K + L) x N), the same flops.
  __nv_bfloat16* AC = alloc<__nv_bfloat16>(M * pad8(K + L));
  __nv_bfloat16* BD = alloc<__nv_bfloat16>((K + L) * p.ldb);
  fill<<<264, 256>>>(AC, M * pad8(K + L), 9);
  fill<<<264, 256>>>(BD, (K + L) * p.ldb, 10);
  CHECK(cudaDeviceSynchronize());
  int rc = LOOM_OK;
  const double loom_ms = median_ms([&] { rc = p.launch(); });
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  const double unfused_ms = median_ms([&] {
    st = gemm(h, T1, p.lde, p.A, p.lda, p.B, p.ldb, M, N, K);
    gemm(h, T2, p.lde, p.C, p.ldc, p.D, p.ldd, M, N, L);
    add_bf16<<<1056, 256>>>(reinterpret_cast<__nv_bfloat16*>(p.E), T1, T2, M * p.lde);
  });
  const double one_gemm_ms = median_ms([&] { gemm(h, T1, p.lde, AC, pad8(K + L), BD, p.ldb, M, N, K + L); });
  const double tflops = 2.0 * double(M) * double(N) * double(K + L) / (loom_ms * 1e-3) / 1e12;
  std::printf("| bench %5lld x %5lld x %5lld x %5lld | loom %.3f ms (%.0f TFLOP/s, rc %d) | cuBLAS 2 GEMMs + add %.3f ms: %.2fx | "
              "cuBLAS one GEMM over K+L %.3f ms: %.2fx | cublas %s\n",
              (long long)M, (long long)N, (long long)K, (long long)L, loom_ms, tflops, rc, unfused_ms, unfused_ms / loom_ms,
              one_gemm_ms, one_gemm_ms / loom_ms, cublasGetStatusString(st));
  cudaFree(T1);
  cudaFree(T2);
  cudaFree(AC);
  cudaFree(BD);
}

}  // namespace

int main(int argc, char** argv) {
  std::string only, by_index_only;
  bool do_bench = false, by_index = false;
  uint64_t seed = uint64_t(std::chrono::system_clock::now().time_since_epoch().count());
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--bench") do_bench = true;
    else if (a == "--by-index" && i + 1 < argc) by_index = true, by_index_only = argv[++i];
  }
  // Mapping `m` by index on a 3-extent shape of e2e::every_mapping, with L = K + 5.
  auto by_mapping = [](int64_t M, int64_t N, int64_t K, uint64_t s, int m) { return run(M, N, K, K + 5, s, m); };
  if (by_index)
    return e2e::by_index_main("add_gemm_correctness", loom_add_gemm_mappings(), by_index_only.c_str(), seed, by_mapping);
  const int64_t shapes[][4] = {{128, 256, 64, 64},    {129, 257, 65, 70},       {1, 300, 64, 33},
                               {300, 1, 100, 17},     {300, 520, 200, 130},     {1000, 1000, 1000, 1000},
                               {4096, 4096, 4096, 4096}};
  bool all = true;
  for (auto& s : shapes) {
    std::string name = std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]) + "x" + std::to_string(s[3]);
    if (!only.empty() && name != only) continue;
    all = run(s[0], s[1], s[2], s[3], seed++) && all;
  }
  if (only.empty()) all = e2e::every_mapping(loom_add_gemm_mappings(), nullptr, seed, by_mapping) == 1 && all;  // every mapping by index
  std::printf("add_gemm_correctness: %s\n", all ? "PASS" : "FAIL");
  if (do_bench) {
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
      std::printf("bench: no cuBLAS handle\n");
    } else {
      const int64_t big[][4] = {{1024, 1024, 1024, 1024}, {2048, 2048, 2048, 2048}, {4096, 4096, 4096, 4096},
                                {8192, 8192, 4096, 4096}, {4096, 4096, 8192, 1024}};
      for (auto& s : big) bench(s[0], s[1], s[2], s[3], h);
      cublasDestroy(h);
    }
  }
  return all ? 0 : 1;
}
