// gemm_residual_correctness: loom's generated gemm_residual (examples/gemm_residual: D = A·B + alpha·C,
// C an M x N bf16 input read in the epilogue, bf16 out, fp32 accumulation, alpha an f32 scalar)
// against a double-precision reference on the GPU. Fresh random inputs each run (seed printed; alpha
// drawn from the seed in [-2, 2)), D poisoned (NaN) before the launch, row padding checked for stray
// writes, C's row padding NaN (a read past C's rows shows up as a non-finite output). Relative
// Frobenius error < 1e-2; without --only, every mapping by index on three shapes as well (the
// launcher picks one per call). Exit 0 only if every run passes.
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu \
//          -I$GEN/gemm_residual tests/gpu/gemm_residual_correctness.cu $GEN/gemm_residual/gemm_residual.cu \
//          -lcuda -o gemm_residual_correctness
// Usage: gemm_residual_correctness [--only MxNxK | --by-index MxNxK] [--seed S]
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "e2e_check.cuh"
#include "gemm_residual.h"

namespace {

using namespace e2e;

// ref[i, j] = sum_k A[i,k] B[k,j] + alpha C[i,j], in double.
__global__ void reference(double* ref, const __nv_bfloat16* A, const __nv_bfloat16* B, const __nv_bfloat16* C, float alpha,
                          int64_t M, int64_t N, int64_t K, int64_t lda, int64_t ldb, int64_t ldc) {
  int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x, i = blockIdx.y;
  if (j >= N || i >= M) return;
  double s = double(alpha) * __bfloat162float(C[i * ldc + j]);
  for (int64_t k = 0; k < K; ++k) s += double(__bfloat162float(A[i * lda + k])) * __bfloat162float(B[k * ldb + j]);
  ref[i * N + j] = s;
}

// C with its row padding (columns N..ldc-1) NaN.
__global__ void fill_rows(__nv_bfloat16* p, int64_t M, int64_t N, int64_t ld, uint64_t seed) {
  for (int64_t x = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; x < M * ld; x += int64_t(gridDim.x) * blockDim.x) {
    const int64_t j = x % ld;
    p[x] = j < N ? __float2bfloat16(float(mix(seed ^ uint64_t(x)) >> 40) / float(1 << 24) * 2.0f - 1.0f)
                 : __ushort_as_bfloat16(0x7fc1);
  }
}

bool run(int64_t M, int64_t N, int64_t K, uint64_t seed, int mapping = -1) {  // mapping < 0: the launcher's pick
  const int64_t lda = pad8(K), ldb = pad8(N), ldc = pad8(N), ldd = pad8(N);
  const float alpha = float(int64_t(seed % 16) - 8) / 4.0f;  // in [-2, 2), exact in bf16 and f32
  __nv_bfloat16 *A, *B, *C;
  uint16_t* D;
  double* ref;
  Result* res;
  CHECK(cudaMalloc(&A, sizeof(*A) * std::max<int64_t>(1, M * lda)));
  CHECK(cudaMalloc(&B, sizeof(*B) * std::max<int64_t>(1, K * ldb)));
  CHECK(cudaMalloc(&C, sizeof(*C) * std::max<int64_t>(1, M * ldc)));
  CHECK(cudaMalloc(&D, sizeof(*D) * std::max<int64_t>(1, M * ldd)));
  CHECK(cudaMalloc(&ref, sizeof(*ref) * std::max<int64_t>(1, M * N)));
  CHECK(cudaMallocManaged(&res, sizeof(Result)));
  *res = Result{};
  fill<<<264, 256>>>(A, M * lda, seed);
  fill<<<264, 256>>>(B, K * ldb, seed * 3 + 1);
  fill_rows<<<264, 256>>>(C, M, N, ldc, seed * 5 + 2);
  poison<<<264, 256>>>(D, M * ldd);
  reference<<<dim3(unsigned((N + 127) / 128), unsigned(M)), 128>>>(ref, A, B, C, alpha, M, N, K, lda, ldb, ldc);
  loom_tensor tD = loom_tensor_2d(D, LOOM_BF16, M, N, ldd);
  loom_tensor tA = loom_tensor_2d(A, LOOM_BF16, M, K, lda);
  loom_tensor tB = loom_tensor_2d(B, LOOM_BF16, K, N, ldb);
  loom_tensor tC = loom_tensor_2d(C, LOOM_BF16, M, N, ldc);
  CHECK(cudaDeviceSynchronize());
  auto t0 = std::chrono::steady_clock::now();
  int rc = mapping < 0 ? loom_gemm_residual(tD, tA, tB, tC, alpha, 0) : loom_gemm_residual_mapping(mapping, tD, tA, tB, tC, alpha, 0);
  CHECK(cudaDeviceSynchronize());
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  compare<<<dim3(unsigned((ldd + 255) / 256), unsigned(M)), 256>>>(D, ref, M, N, ldd, res);
  CHECK(cudaDeviceSynchronize());
  double rel = res->ref2 > 0 ? std::sqrt(res->err2 / res->ref2) : std::sqrt(res->err2);
  bool ok = rc == LOOM_OK && res->nonfinite == 0 && res->stray == 0 && rel < 1e-2;
  const std::string which = mapping < 0 ? "pick" : "m" + std::to_string(mapping);
  std::printf("| %5lld x %5lld x %5lld | %-4s | alpha %5.2f | seed %llu | %s | rc %d, rel err %.3e, non-finite %llu, stray writes %llu, %.2f ms incl. sync\n",
              (long long)M, (long long)N, (long long)K, which.c_str(), alpha, (unsigned long long)seed, ok ? "ok  " : "FAIL", rc, rel,
              res->nonfinite, res->stray, ms);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  cudaFree(D);
  cudaFree(ref);
  cudaFree(res);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::string only, by_index_only;  // --by-index MxNxK: only every mapping by index at that shape (for the sanitizers)
  uint64_t seed = uint64_t(std::chrono::system_clock::now().time_since_epoch().count());
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--by-index" && i + 1 < argc) by_index_only = argv[++i];
  }
  if (!by_index_only.empty())
    return e2e::by_index_main("gemm_residual_correctness", loom_gemm_residual_mappings(), by_index_only.c_str(), seed, run);
  const int64_t shapes[][3] = {{128, 128, 64}, {129, 257, 65}, {1, 300, 64}, {300, 1, 100}, {1000, 1000, 1000}, {4096, 4096, 4096}};
  bool all = true;
  for (auto& s : shapes) {
    std::string name = std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
    if (!only.empty() && name != only) continue;
    all = run(s[0], s[1], s[2], seed++) && all;
  }
  if (only.empty()) all = e2e::every_mapping(loom_gemm_residual_mappings(), nullptr, seed, run) == 1 && all;  // every mapping by index
  std::printf("gemm_residual_correctness: %s\n", all ? "PASS" : "FAIL");
  return all ? 0 : 1;
}
