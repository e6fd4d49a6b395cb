// gemm_bias_act_correctness: loom's generated gemm_bias_act (examples/gemm_bias_act: C = act(A·B +
// bias), bias one bf16 value per column, bf16 in and out, fp32 accumulation) against a
// double-precision reference on the GPU. The activation is the one the kernel was generated with:
// build with -DLOOM_ACT=0 (identity), 1 (ReLU), 2 (GELU, tanh form), 3 (SiLU) or 4 (gelu_fast). Fresh random inputs
// each run (seed printed), C poisoned (NaN) before the launch, row padding checked for stray writes,
// the bias read from a buffer whose entries past N are NaN (a read past the bias shows up as a
// non-finite output). Relative Frobenius error < 1e-2. Every shape through the launcher's pick, then
// (without --only) every mapping by index on three shapes. Exit 0 only if every run passes.
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -DLOOM_ACT=2 -Iruntime -Itests/gpu \
//          -I$GEN/gemm_bias_act_gelu tests/gpu/gemm_bias_act_correctness.cu \
//          $GEN/gemm_bias_act_gelu/gemm_bias_act.cu -lcuda -o gemm_bias_act_gelu
// Usage: gemm_bias_act_correctness [--only MxNxK | --by-index MxNxK] [--seed S]
// --by-index: every mapping by index at that shape alone (what the sanitizers run).
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
#include "gemm_bias_act.h"

#ifndef LOOM_ACT
#error "build with -DLOOM_ACT=0 (identity), 1 (relu), 2 (gelu), 3 (silu) or 4 (gelu_fast): the kernel's activation"
#endif

namespace {

using namespace e2e;

const char* const kActNames[] = {"identity", "relu", "gelu", "silu", "gelu_fast"};

__device__ double act(double x) {
#if LOOM_ACT == 0
  return x;
#elif LOOM_ACT == 1
  return x > 0 ? x : 0.0;
#elif LOOM_ACT == 2 || LOOM_ACT == 4  // gelu and gelu_fast: the same function (the GPU's tanh.approx in the second)
  return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
#else
  return x / (1.0 + exp(-x));
#endif
}

// ref[i, j] = act(sum_k A[i,k] B[k,j] + bias[j]), in double.
__global__ void reference(double* ref, const __nv_bfloat16* A, const __nv_bfloat16* B, const __nv_bfloat16* bias,
                          int64_t M, int64_t N, int64_t K, int64_t lda, int64_t ldb) {
  int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x, i = blockIdx.y;
  if (j >= N || i >= M) return;
  double s = __bfloat162float(bias[j]);
  for (int64_t k = 0; k < K; ++k) s += double(__bfloat162float(A[i * lda + k])) * __bfloat162float(B[k * ldb + j]);
  ref[i * N + j] = act(s);
}

// One call on fresh inputs: the launcher's pick (mapping < 0) or mapping `mapping` by index.
bool run(int64_t M, int64_t N, int64_t K, uint64_t seed, int mapping = -1) {
  const int64_t lda = pad8(K), ldb = pad8(N), ldc = pad8(N), nb = pad8(N) + 64;
  __nv_bfloat16 *A, *B, *bias;
  uint16_t* C;
  double* ref;
  Result* res;
  CHECK(cudaMalloc(&A, sizeof(*A) * std::max<int64_t>(1, M * lda)));
  CHECK(cudaMalloc(&B, sizeof(*B) * std::max<int64_t>(1, K * ldb)));
  CHECK(cudaMalloc(&bias, sizeof(*bias) * nb));
  CHECK(cudaMalloc(&C, sizeof(*C) * std::max<int64_t>(1, M * ldc)));
  CHECK(cudaMalloc(&ref, sizeof(*ref) * std::max<int64_t>(1, M * N)));
  CHECK(cudaMallocManaged(&res, sizeof(Result)));
  *res = Result{};
  fill<<<264, 256>>>(A, M * lda, seed);
  fill<<<264, 256>>>(B, K * ldb, seed * 3 + 1);
  poison<<<8, 256>>>(reinterpret_cast<uint16_t*>(bias), nb);  // NaN past N: a read past the bias shows
  fill<<<8, 256>>>(bias, N, seed * 7 + 3);
  poison<<<264, 256>>>(C, M * ldc);
  reference<<<dim3(unsigned((N + 127) / 128), unsigned(M)), 128>>>(ref, A, B, bias, M, N, K, lda, ldb);
  loom_tensor tC = loom_tensor_2d(C, LOOM_BF16, M, N, ldc);
  loom_tensor tA = loom_tensor_2d(A, LOOM_BF16, M, K, lda);
  loom_tensor tB = loom_tensor_2d(B, LOOM_BF16, K, N, ldb);
  loom_tensor tbias = loom_tensor_1d(bias, LOOM_BF16, N);
  CHECK(cudaDeviceSynchronize());
  auto t0 = std::chrono::steady_clock::now();
  int rc = mapping < 0 ? loom_gemm_bias_act(tC, tA, tB, tbias, 0) : loom_gemm_bias_act_mapping(mapping, tC, tA, tB, tbias, 0);
  CHECK(cudaDeviceSynchronize());
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  // The launcher's pick for these arguments is one of the mappings.
  const int pick = loom_gemm_bias_act_pick(tC, tA, tB, tbias, 0), mappings = loom_gemm_bias_act_mappings();
  const bool pick_ok = pick >= 0 && pick < mappings;
  compare<<<dim3(unsigned((ldc + 255) / 256), unsigned(M)), 256>>>(C, ref, M, N, ldc, res);
  CHECK(cudaDeviceSynchronize());
  double rel = res->ref2 > 0 ? std::sqrt(res->err2 / res->ref2) : std::sqrt(res->err2);
  bool ok = rc == LOOM_OK && pick_ok && res->nonfinite == 0 && res->stray == 0 && rel < 1e-2;
  const std::string which = mapping < 0 ? "p" + std::to_string(pick) : "m" + std::to_string(mapping);
  std::printf("| %s | %5lld x %5lld x %5lld | %-4s | seed %llu | %s | rc %d, rel err %.3e, non-finite %llu, stray writes %llu, %.2f ms incl. sync\n",
              kActNames[LOOM_ACT], (long long)M, (long long)N, (long long)K, which.c_str(), (unsigned long long)seed,
              ok ? "ok  " : "FAIL", rc, rel, res->nonfinite, res->stray, ms);
  cudaFree(A);
  cudaFree(B);
  cudaFree(bias);
  cudaFree(C);
  cudaFree(ref);
  cudaFree(res);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::string only, by_index_only;
  uint64_t seed = uint64_t(std::chrono::system_clock::now().time_since_epoch().count());
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--by-index" && i + 1 < argc) by_index_only = argv[++i];
  }
  if (!by_index_only.empty())
    return e2e::by_index_main("gemm_bias_act_correctness", loom_gemm_bias_act_mappings(), by_index_only.c_str(), seed, run);
  const int64_t shapes[][3] = {{128, 128, 64}, {129, 257, 65}, {1, 300, 64}, {300, 1, 100}, {1000, 1000, 1000}, {4096, 4096, 4096}};
  bool all = true;
  for (auto& s : shapes) {
    std::string name = std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
    if (!only.empty() && name != only) continue;
    all = run(s[0], s[1], s[2], seed++) && all;
  }
  if (only.empty()) all = e2e::every_mapping(loom_gemm_bias_act_mappings(), nullptr, seed, run) == 1 && all;  // every mapping by index
  std::printf("gemm_bias_act_correctness (%s): %s\n", kActNames[LOOM_ACT], all ? "PASS" : "FAIL");
  return all ? 0 : 1;
}
