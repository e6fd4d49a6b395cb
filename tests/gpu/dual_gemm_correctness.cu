// dual_gemm_correctness: loom's generated dual_gemm (examples/dual_gemm: D = silu(A·B1) ⊙ (A·B2), bf16
// in and out, fp32 accumulation) against a double-precision reference on the GPU. Fresh random
// inputs each run (seed printed), D poisoned (NaN) before the launch, row padding checked for stray
// writes. Relative Frobenius error < 1e-2. Exit 0 only if every shape passes.
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -I$GEN/dual_gemm \
//          tests/gpu/dual_gemm_correctness.cu $GEN/dual_gemm/dual_gemm.cu -lcuda -o dual_gemm_correctness
// Usage: dual_gemm_correctness [--only MxNxK] [--seed S]
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "dual_gemm.h"
#include "e2e_check.cuh"

namespace {

using namespace e2e;

// ref[i, j] = silu(sum_k A[i,k] B1[k,j]) * sum_k A[i,k] B2[k,j], in double.
__global__ void reference(double* ref, const __nv_bfloat16* A, const __nv_bfloat16* B1, const __nv_bfloat16* B2,
                          int64_t M, int64_t N, int64_t K, int64_t lda, int64_t ldb) {
  int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x, i = blockIdx.y;
  if (j >= N || i >= M) return;
  double s1 = 0, s2 = 0;
  for (int64_t k = 0; k < K; ++k) {
    double a = __bfloat162float(A[i * lda + k]);
    s1 += a * __bfloat162float(B1[k * ldb + j]);
    s2 += a * __bfloat162float(B2[k * ldb + j]);
  }
  ref[i * N + j] = s1 / (1.0 + exp(-s1)) * s2;
}

bool run(int64_t M, int64_t N, int64_t K, uint64_t seed) {
  const int64_t lda = pad8(K), ldb = pad8(N), ldd = pad8(N);
  __nv_bfloat16 *A, *B1, *B2;
  uint16_t* D;
  double* ref;
  Result* res;
  CHECK(cudaMalloc(&A, sizeof(*A) * std::max<int64_t>(1, M * lda)));
  CHECK(cudaMalloc(&B1, sizeof(*B1) * std::max<int64_t>(1, K * ldb)));
  CHECK(cudaMalloc(&B2, sizeof(*B2) * std::max<int64_t>(1, K * ldb)));
  CHECK(cudaMalloc(&D, sizeof(*D) * std::max<int64_t>(1, M * ldd)));
  CHECK(cudaMalloc(&ref, sizeof(*ref) * std::max<int64_t>(1, M * N)));
  CHECK(cudaMallocManaged(&res, sizeof(Result)));
  *res = Result{};
  fill<<<264, 256>>>(A, M * lda, seed);
  fill<<<264, 256>>>(B1, K * ldb, seed * 3 + 1);
  fill<<<264, 256>>>(B2, K * ldb, seed * 5 + 2);
  poison<<<264, 256>>>(D, M * ldd);
  reference<<<dim3(unsigned((N + 127) / 128), unsigned(M)), 128>>>(ref, A, B1, B2, M, N, K, lda, ldb);
  loom_tensor tD = loom_tensor_2d(D, LOOM_BF16, M, N, ldd);
  loom_tensor tA = loom_tensor_2d(A, LOOM_BF16, M, K, lda);
  loom_tensor tB1 = loom_tensor_2d(B1, LOOM_BF16, K, N, ldb);
  loom_tensor tB2 = loom_tensor_2d(B2, LOOM_BF16, K, N, ldb);
  CHECK(cudaDeviceSynchronize());
  auto t0 = std::chrono::steady_clock::now();
  int rc = loom_dual_gemm(tD, tA, tB1, tB2, 0);
  CHECK(cudaDeviceSynchronize());
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  compare<<<dim3(unsigned((ldd + 255) / 256), unsigned(M)), 256>>>(D, ref, M, N, ldd, res);
  CHECK(cudaDeviceSynchronize());
  double rel = res->ref2 > 0 ? std::sqrt(res->err2 / res->ref2) : std::sqrt(res->err2);
  bool ok = rc == LOOM_OK && res->nonfinite == 0 && res->stray == 0 && rel < 1e-2;
  std::printf("| %5lld x %5lld x %5lld | seed %llu | %s | rc %d, rel err %.3e, non-finite %llu, stray writes %llu, %.2f ms incl. sync\n",
              (long long)M, (long long)N, (long long)K, (unsigned long long)seed, ok ? "ok  " : "FAIL", rc, rel,
              res->nonfinite, res->stray, ms);
  cudaFree(A);
  cudaFree(B1);
  cudaFree(B2);
  cudaFree(D);
  cudaFree(ref);
  cudaFree(res);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::string only;
  uint64_t seed = uint64_t(std::chrono::system_clock::now().time_since_epoch().count());
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
  }
  const int64_t shapes[][3] = {{129, 257, 65}, {1, 300, 64}, {300, 1, 100}, {1000, 1000, 1000}, {4096, 4096, 4096}};
  bool all = true;
  for (auto& s : shapes) {
    std::string name = std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
    if (!only.empty() && name != only) continue;
    all = run(s[0], s[1], s[2], seed++) && all;
  }
  std::printf("dual_gemm_correctness: %s\n", all ? "PASS" : "FAIL");
  return all ? 0 : 1;
}
