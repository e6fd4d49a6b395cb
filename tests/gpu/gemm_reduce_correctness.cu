// gemm_reduce_correctness: loom's generated gemm_reduce (examples/gemm_reduce: C = A·B bf16 and
// R[i] = Σ_j C[i, j] fp32, taken from the fp32 accumulator) against a double-precision reference on
// the GPU, from the same bf16 inputs. Either program (gemm_reduce.loom: 128 x 256 tiles, row sums
// in registers added into R across blocks with atomics; gemm_reduce_shared.loom: whole-row panels,
// row sums in shared memory) generates the same C ABI, so this file builds against whichever
// directory it is given. Fresh random inputs each run (seed printed), C and R poisoned (NaN) before
// the launch, C's row padding and 8 entries past R's end checked for stray writes. The contract is
// R = the row sums whatever R held: this test zeroes nothing itself (gemm_reduce.loom's launcher
// clears R with cudaMemsetAsync before its blocks add into it; a surviving poison or doubled sums
// fail the check). The order of the blocks' adds is unspecified: R is checked against a bound.
// Then every mapping of the program by index (loom_gemm_reduce_mapping: gemm_reduce.loom's
// when(fastest) candidates, which the launcher picks per call) on e2e::every_mapping's shapes.
// C: relative Frobenius error < 1e-2 (bf16 output). R: the kernel sums the fp32 products, not the
// bf16-rounded C, so it is compared with the row sums of the exact product:
//   |R[i] - Σ_j ref[i, j]| <= 1e-3 · Σ_j |ref[i, j]| + 1e-3
// (fp32 accumulation over K, then over N, is far inside that bound; a lost or doubled column tile,
// or a quad partial missing, is far outside it).
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu \
//          -I$DIR tests/gpu/gemm_reduce_correctness.cu $DIR/gemm_reduce.cu -lcuda -o gemm_reduce_correctness
// Usage: gemm_reduce_correctness [--only MxNxK] [--seed S] [--by-index MxNxK (only every mapping at that shape)]
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
#include "gemm_reduce.h"

namespace {

using namespace e2e;

// ref[i, j] = sum_k A[i,k] B[k,j], in double.
__global__ void reference(double* ref, const __nv_bfloat16* A, const __nv_bfloat16* B, int64_t M, int64_t N, int64_t K,
                          int64_t lda, int64_t ldb) {
  int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x, i = blockIdx.y;
  if (j >= N || i >= M) return;
  double s = 0;
  for (int64_t k = 0; k < K; ++k) s += double(__bfloat162float(A[i * lda + k])) * __bfloat162float(B[k * ldb + j]);
  ref[i * N + j] = s;
}

struct RowResult {
  unsigned long long bad = 0, nonfinite = 0, stray = 0;
  double worst = 0;  // the largest |R - ref| / bound
};

// One thread per row: the reference row sum and its bound; rows M..M+7 must still hold the poison.
__global__ void compare_rows(const float* R, const double* ref, int64_t M, int64_t N, RowResult* r) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= M + 8) return;
  const uint32_t bits = __float_as_uint(R[i]);
  if (i >= M) {
    if (bits != 0x7fc00001u) atomicAdd(&r->stray, 1ull);
    return;
  }
  double s = 0, a = 0;
  for (int64_t j = 0; j < N; ++j) {
    s += ref[i * N + j];
    a += fabs(ref[i * N + j]);
  }
  const float v = R[i];
  if (!isfinite(v)) {
    atomicAdd(&r->nonfinite, 1ull);
    return;
  }
  const double bound = 1e-3 * a + 1e-3, err = fabs(double(v) - s);
  if (err > bound) atomicAdd(&r->bad, 1ull);
  // (a racy max is fine for a report)
  if (err / bound > r->worst) r->worst = err / bound;
}

__global__ void poison_f32(float* p, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    p[i] = __uint_as_float(0x7fc00001u);
}

bool run(int64_t M, int64_t N, int64_t K, uint64_t seed, int mapping = -1) {
  const int64_t lda = pad8(K), ldb = pad8(N), ldc = pad8(N);
  __nv_bfloat16 *A, *B;
  uint16_t* C;
  float* R;
  double* ref;
  Result* res;
  RowResult* rr;
  CHECK(cudaMalloc(&A, sizeof(*A) * std::max<int64_t>(1, M * lda)));
  CHECK(cudaMalloc(&B, sizeof(*B) * std::max<int64_t>(1, K * ldb)));
  CHECK(cudaMalloc(&C, sizeof(*C) * std::max<int64_t>(1, M * ldc)));
  CHECK(cudaMalloc(&R, sizeof(*R) * (M + 8)));
  CHECK(cudaMalloc(&ref, sizeof(*ref) * std::max<int64_t>(1, M * N)));
  CHECK(cudaMallocManaged(&res, sizeof(Result)));
  CHECK(cudaMallocManaged(&rr, sizeof(RowResult)));
  *res = Result{};
  *rr = RowResult{};
  fill<<<264, 256>>>(A, M * lda, seed);
  fill<<<264, 256>>>(B, K * ldb, seed * 3 + 1);
  poison<<<264, 256>>>(C, M * ldc);
  poison_f32<<<8, 256>>>(R, M + 8);
  reference<<<dim3(unsigned((N + 127) / 128), unsigned(M)), 128>>>(ref, A, B, M, N, K, lda, ldb);
  loom_tensor tC = loom_tensor_2d(C, LOOM_BF16, M, N, ldc);
  loom_tensor tA = loom_tensor_2d(A, LOOM_BF16, M, K, lda);
  loom_tensor tB = loom_tensor_2d(B, LOOM_BF16, K, N, ldb);
  loom_tensor tR = loom_tensor_1d(R, LOOM_F32, M);
  CHECK(cudaDeviceSynchronize());
  auto t0 = std::chrono::steady_clock::now();
  int rc = mapping < 0 ? loom_gemm_reduce(tC, tR, tA, tB, 0) : loom_gemm_reduce_mapping(mapping, tC, tR, tA, tB, 0);
  CHECK(cudaDeviceSynchronize());
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  compare<<<dim3(unsigned((ldc + 255) / 256), unsigned(M)), 256>>>(C, ref, M, N, ldc, res);
  compare_rows<<<unsigned((M + 8 + 127) / 128), 128>>>(R, ref, M, N, rr);
  CHECK(cudaDeviceSynchronize());
  double rel = res->ref2 > 0 ? std::sqrt(res->err2 / res->ref2) : std::sqrt(res->err2);
  bool ok = rc == LOOM_OK && res->nonfinite == 0 && res->stray == 0 && rel < 1e-2 && rr->bad == 0 && rr->nonfinite == 0 &&
            rr->stray == 0;
  std::printf("| %5lld x %5lld x %5lld | %s | seed %llu | %s | rc %d, C: rel err %.3e, non-finite %llu, stray %llu | R: bad %llu, "
              "non-finite %llu, stray %llu, worst err/bound %.3f | %.2f ms incl. sync\n",
              (long long)M, (long long)N, (long long)K, mapping < 0 ? "pick" : ("m" + std::to_string(mapping)).c_str(),
              (unsigned long long)seed, ok ? "ok  " : "FAIL", rc, rel, res->nonfinite,
              res->stray, rr->bad, rr->nonfinite, rr->stray, rr->worst, ms);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  cudaFree(R);
  cudaFree(ref);
  cudaFree(res);
  cudaFree(rr);
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
    return e2e::by_index_main("gemm_reduce_correctness", loom_gemm_reduce_mappings(), by_index_only.c_str(), seed, run);
  // Non-tile shapes (129 rows: a 1-row last panel, the second warpgroup without rows; 257 columns:
  // a 1-column last tile and rows that are not whole 16-byte units), a single row or column, and
  // large ones (several column tiles per row of tiles: several blocks add into each entry of R, 32
  // of them at 256 x 8192; several tiles per persistent block).
  const int64_t shapes[][3] = {{128, 256, 64},   {129, 257, 65},     {1, 300, 64},     {300, 1, 100},
                               {300, 520, 200},  {1000, 1000, 1000}, {256, 8192, 256}, {4096, 4096, 4096}};
  bool all = true;
  for (auto& s : shapes) {
    std::string name = std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
    if (!only.empty() && name != only) continue;
    all = run(s[0], s[1], s[2], seed++) && all;
  }
  if (only.empty()) all = e2e::every_mapping(loom_gemm_reduce_mappings(), nullptr, seed, run) == 1 && all;  // every mapping by index
  std::printf("gemm_reduce_correctness: %s\n", all ? "PASS" : "FAIL");
  return all ? 0 : 1;
}
