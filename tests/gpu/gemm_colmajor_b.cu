// gemm_colmajor_b: loom's generated gemm with a column-major B (examples/gemm with
// `layout(B: col_major)` on its entry instances and `B: col_major swizzle128` on the staging
// instance, made by tests/gpu/e2e/gemm_colmajor_b.sh) against a double-precision reference on the
// GPU. B is K x N logically, stored N rows of K (stride [1, ldb]). Fresh random inputs each run (seed
// printed), C poisoned before the launch, row padding checked for stray writes, relative Frobenius
// error < 1e-2; a row-major B is refused with LOOM_ERR_STRIDE and writes nothing. Exit 0 only if
// every case passes.
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -I$GEN/gemm_colmajor_b \
//          tests/gpu/gemm_colmajor_b.cu $GEN/gemm_colmajor_b/gemm.cu -lcuda -o gemm_colmajor_b
// Usage: gemm_colmajor_b [--only MxNxK] [--seed S]
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

#include "e2e_check.cuh"
#include "gemm.h"

namespace {

using namespace e2e;

// ref[i, j] = sum_k A[i, k] B[k, j] in double; B column-major: B[k, j] at j * ldb + k.
__global__ void reference(double* ref, const __nv_bfloat16* A, const __nv_bfloat16* B, int64_t M, int64_t N, int64_t K,
                          int64_t lda, int64_t ldb) {
  int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x, i = blockIdx.y;
  if (j >= N || i >= M) return;
  double s = 0;
  for (int64_t k = 0; k < K; ++k) s += double(__bfloat162float(A[i * lda + k])) * __bfloat162float(B[j * ldb + k]);
  ref[i * N + j] = s;
}

bool run(int64_t M, int64_t N, int64_t K, uint64_t seed) {
  const int64_t lda = pad8(K), ldb = pad8(K), ldc = pad8(N);
  __nv_bfloat16 *A, *B;
  uint16_t* C;
  double* ref;
  Result* res;
  CHECK(cudaMalloc(&A, sizeof(*A) * std::max<int64_t>(1, M * lda)));
  CHECK(cudaMalloc(&B, sizeof(*B) * std::max<int64_t>(1, N * ldb)));
  CHECK(cudaMalloc(&C, sizeof(*C) * std::max<int64_t>(1, M * ldc)));
  CHECK(cudaMalloc(&ref, sizeof(*ref) * std::max<int64_t>(1, M * N)));
  CHECK(cudaMallocManaged(&res, sizeof(Result)));
  *res = Result{};
  fill<<<264, 256>>>(A, M * lda, seed);
  fill<<<264, 256>>>(B, N * ldb, seed * 3 + 1);
  poison<<<264, 256>>>(C, M * ldc);
  reference<<<dim3(unsigned((N + 127) / 128), unsigned(M)), 128>>>(ref, A, B, M, N, K, lda, ldb);
  loom_tensor tC = loom_tensor_2d(C, LOOM_BF16, M, N, ldc);
  loom_tensor tA = loom_tensor_2d(A, LOOM_BF16, M, K, lda);
  loom_tensor tB = loom_tensor_2d(B, LOOM_BF16, K, N, 1);
  tB.stride[0] = 1;    // column-major: k is contiguous
  tB.stride[1] = ldb;  // the next column starts ldb elements on
  CHECK(cudaDeviceSynchronize());
  // The same B described row-major is refused, and nothing is written.
  loom_tensor rowmajor = loom_tensor_2d(B, LOOM_BF16, K, N, ldb);
  int refused = loom_gemm(tC, tA, rowmajor, 0);
  CHECK(cudaDeviceSynchronize());
  auto t0 = std::chrono::steady_clock::now();
  int rc = loom_gemm(tC, tA, tB, 0);
  CHECK(cudaDeviceSynchronize());
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  compare<<<dim3(unsigned((ldc + 255) / 256), unsigned(M)), 256>>>(C, ref, M, N, ldc, res);
  CHECK(cudaDeviceSynchronize());
  double rel = res->ref2 > 0 ? std::sqrt(res->err2 / res->ref2) : std::sqrt(res->err2);
  bool ok = rc == LOOM_OK && refused == LOOM_ERR_STRIDE && res->nonfinite == 0 && res->stray == 0 && rel < 1e-2;
  std::printf("| %5lld x %5lld x %5lld | seed %llu | %s | rc %d (row-major B: %d), rel err %.3e, non-finite %llu, stray writes %llu, %.2f ms incl. sync\n",
              (long long)M, (long long)N, (long long)K, (unsigned long long)seed, ok ? "ok  " : "FAIL", rc, refused, rel,
              res->nonfinite, res->stray, ms);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
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
  // Both of examples/gemm's mappings: the small-problem one (129x257x65, 1x300x64, 4096x1x4096,
  // 1000^3) and the default (1153x2049x65, 4096^3).
  const int64_t shapes[][3] = {{129, 257, 65}, {1, 300, 64}, {4096, 1, 4096}, {1000, 1000, 1000}, {1153, 2049, 65},
                               {4096, 4096, 4096}};
  bool all = true;
  for (auto& s : shapes) {
    std::string name = std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
    if (!only.empty() && name != only) continue;
    all = run(s[0], s[1], s[2], seed++) && all;
  }
  std::printf("gemm_colmajor_b: %s\n", all ? "PASS" : "FAIL");
  return all ? 0 : 1;
}
