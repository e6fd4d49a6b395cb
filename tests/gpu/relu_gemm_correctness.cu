// relu_gemm_correctness: loom's generated relu_gemm (examples/relu_gemm: C = ReLU(A)·B, A: M x K,
// B: K x N, bf16 in, bf16 out, fp32 accumulation; ReLU applied to each K step's A tile in the
// registers of the threads that hold it as their wgmma A fragments) against a double-precision
// reference on the GPU, computed from the same bf16 inputs (half of A negative). Fresh random
// inputs each run (seed printed), C poisoned (NaN) before the launch, C's row padding checked for
// stray writes. Relative Frobenius error < 1e-2; without --only, every mapping by index on three
// shapes as well (the launcher picks one per call). Exit 0 only if every run passes.
// With --bench: also times the kernel against the unfused baseline (an element-wise ReLU kernel
// into a bf16 copy of A, as torch.relu, then cublasGemmEx) and a plain cublasGemmEx on A, median of
// 20 runs each, and prints the ratios (no pass/fail).
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu \
//          -I$GEN/relu_gemm tests/gpu/relu_gemm_correctness.cu $GEN/relu_gemm/relu_gemm.cu \
//          -lcuda -lcublas -o relu_gemm_correctness
// Usage: relu_gemm_correctness [--only MxNxK | --by-index MxNxK] [--seed S] [--bench]
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "relu_gemm.h"
#include "e2e_check.cuh"

namespace {

using namespace e2e;

// ref[i, j] = sum_k max(A[i,k], 0) B[k,j], in double.
__global__ void reference(double* ref, const __nv_bfloat16* A, const __nv_bfloat16* B, int64_t M, int64_t N, int64_t K,
                          int64_t lda, int64_t ldb) {
  int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x, i = blockIdx.y;
  if (j >= N || i >= M) return;
  double s = 0;
  for (int64_t k = 0; k < K; ++k) s += fmax(double(__bfloat162float(A[i * lda + k])), 0.0) * __bfloat162float(B[k * ldb + j]);
  ref[i * N + j] = s;
}

__global__ void relu_bf16(__nv_bfloat16* out, const __nv_bfloat16* x, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    out[i] = __float2bfloat16(fmaxf(__bfloat162float(x[i]), 0.0f));
}

template <class T>
T* alloc(int64_t n) {
  T* p = nullptr;
  CHECK(cudaMalloc(&p, sizeof(T) * std::max<int64_t>(1, n)));
  return p;
}

struct Problem {
  int64_t M, N, K;
  int64_t lda, ldb, ldc;
  __nv_bfloat16 *A, *B;
  uint16_t* C;
  Problem(int64_t m, int64_t n, int64_t k, uint64_t seed) : M(m), N(n), K(k), lda(pad8(k)), ldb(pad8(n)), ldc(pad8(n)) {
    A = alloc<__nv_bfloat16>(M * lda);
    B = alloc<__nv_bfloat16>(K * ldb);
    C = alloc<uint16_t>(M * ldc);
    fill<<<264, 256>>>(A, M * lda, seed);
    fill<<<264, 256>>>(B, K * ldb, seed * 3 + 1);
    poison<<<264, 256>>>(C, M * ldc);
  }
  ~Problem() {
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
  }
  // The launcher's pick (mapping < 0) or mapping `mapping` by index.
  int launch(cudaStream_t s = 0, int mapping = -1) const {
    const loom_tensor tC = loom_tensor_2d(C, LOOM_BF16, M, N, ldc), tA = loom_tensor_2d(A, LOOM_BF16, M, K, lda),
                      tB = loom_tensor_2d(B, LOOM_BF16, K, N, ldb);
    return mapping < 0 ? loom_relu_gemm(tC, tA, tB, s) : loom_relu_gemm_mapping(mapping, tC, tA, tB, s);
  }
};

bool run(int64_t M, int64_t N, int64_t K, uint64_t seed, int mapping = -1) {
  Problem p(M, N, K, seed);
  double* ref = alloc<double>(M * N);
  Result* res;
  CHECK(cudaMallocManaged(&res, sizeof(Result)));
  *res = Result{};
  reference<<<dim3(unsigned((N + 127) / 128), unsigned(M)), 128>>>(ref, p.A, p.B, M, N, K, p.lda, p.ldb);
  CHECK(cudaDeviceSynchronize());
  auto t0 = std::chrono::steady_clock::now();
  int rc = p.launch(0, mapping);
  CHECK(cudaDeviceSynchronize());
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  compare<<<dim3(unsigned((p.ldc + 255) / 256), unsigned(M)), 256>>>(p.C, ref, M, N, p.ldc, res);
  CHECK(cudaDeviceSynchronize());
  double rel = res->ref2 > 0 ? std::sqrt(res->err2 / res->ref2) : std::sqrt(res->err2);
  bool ok = rc == LOOM_OK && res->nonfinite == 0 && res->stray == 0 && rel < 1e-2;
  const std::string which = mapping < 0 ? "pick" : "m" + std::to_string(mapping);
  std::printf("| %5lld x %5lld x %5lld | %-4s | seed %llu | %s | rc %d, rel err %.3e, non-finite %llu, stray writes %llu, %.2f ms incl. sync\n",
              (long long)M, (long long)N, (long long)K, which.c_str(), (unsigned long long)seed, ok ? "ok  " : "FAIL", rc, rel,
              res->nonfinite, res->stray, ms);
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

void bench(int64_t M, int64_t N, int64_t K, cublasHandle_t h) {
  Problem p(M, N, K, 1);
  __nv_bfloat16* RA = alloc<__nv_bfloat16>(M * p.lda);
  CHECK(cudaDeviceSynchronize());
  int rc = LOOM_OK;
  const double loom_ms = median_ms([&] { rc = p.launch(); });
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  const double unfused_ms = median_ms([&] {
    relu_bf16<<<1056, 256>>>(RA, p.A, M * p.lda);
    st = gemm(h, p.C, p.ldc, RA, p.lda, p.B, p.ldb, M, N, K);
  });
  const double gemm_ms = median_ms([&] { gemm(h, p.C, p.ldc, p.A, p.lda, p.B, p.ldb, M, N, K); });
  const double tflops = 2.0 * double(M) * double(N) * double(K) / (loom_ms * 1e-3) / 1e12;
  std::printf("| bench %5lld x %5lld x %5lld | loom %.3f ms (%.0f TFLOP/s, rc %d) | relu + cuBLAS GEMM %.3f ms: %.2fx | "
              "cuBLAS GEMM alone %.3f ms: %.2fx | cublas %s\n",
              (long long)M, (long long)N, (long long)K, loom_ms, tflops, rc, unfused_ms, unfused_ms / loom_ms, gemm_ms,
              gemm_ms / loom_ms, cublasGetStatusString(st));
  cudaFree(RA);
}

}  // namespace

int main(int argc, char** argv) {
  std::string only, by_index_only;  // --by-index MxNxK: only every mapping by index at that shape (for the sanitizers)
  bool do_bench = false;
  uint64_t seed = uint64_t(std::chrono::system_clock::now().time_since_epoch().count());
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--bench") do_bench = true;
    else if (a == "--by-index" && i + 1 < argc) by_index_only = argv[++i];
  }
  const int64_t shapes[][3] = {{128, 256, 64}, {129, 257, 65}, {1, 300, 64}, {300, 1, 100},
                               {300, 520, 200}, {1000, 1000, 1000}, {4096, 4096, 4096}};
  bool all = true;
  if (!by_index_only.empty())
    return e2e::by_index_main("relu_gemm_correctness", loom_relu_gemm_mappings(), by_index_only.c_str(), seed, run);
  for (auto& s : shapes) {
    std::string name = std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
    if (!only.empty() && name != only) continue;
    all = run(s[0], s[1], s[2], seed++) && all;
  }
  if (only.empty()) all = e2e::every_mapping(loom_relu_gemm_mappings(), nullptr, seed, run) == 1 && all;  // every mapping by index
  std::printf("relu_gemm_correctness: %s\n", all ? "PASS" : "FAIL");
  if (do_bench) {
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
      std::printf("bench: no cuBLAS handle\n");
    } else {
      const int64_t big[][3] = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192},
                                {8192, 1024, 8192}};
      for (auto& s : big) bench(s[0], s[1], s[2], h);
      cublasDestroy(h);
    }
  }
  return all ? 0 : 1;
}
