// examples/gemm_reduce's mappings timed on their own and as the launcher picks (session 25):
// per-launch CUDA events after warm-up, median of 30, two alternating rounds, inputs random bf16 in
// [-1, 1) rotated over 3 copies. Prints "| shape | m0 ms | m1 ms | m2 ms | pick | pick ms | pick / best |".
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -IDIR gr_mappings.cu DIR/gemm_reduce.cu -lcuda
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>

#include "gemm_reduce.h"

__global__ void fill(__nv_bfloat16* p, int64_t n, uint64_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    uint64_t x = (uint64_t(i) + seed) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    p[i] = __float2bfloat16(float(x & 0xFFFF) / 32768.0f - 1.0f);
  }
}

int main() {
  const long long shapes[][3] = {{2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192}, {4096, 14336, 4096},
                                 {8192, 8192, 1024}, {3000, 5000, 2000}, {1000, 1000, 1000}, {512, 512, 512},
                                 {768, 1024, 2048},  {2048, 1024, 512},  {1536, 1536, 1536}, {640, 3000, 1000},
                                 {1200, 1200, 4000}, {256, 8192, 256}};
  const int n = loom_gemm_reduce_mappings();
  std::printf("| shape | m0 ms | m1 ms | m2 ms | pick | pick ms | pick / best |\n|---|---|---|---|---|---|---|\n");
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (auto& sh : shapes) {
    const long long M = sh[0], N = sh[1], K = sh[2];
    const int sets = 3;
    std::vector<__nv_bfloat16*> A(sets), B(sets), C(sets);
    std::vector<float*> R(sets);
    for (int s = 0; s < sets; ++s) {
      cudaMalloc(&A[s], M * K * 2);
      cudaMalloc(&B[s], K * N * 2);
      cudaMalloc(&C[s], M * N * 2);
      cudaMalloc(&R[s], M * 4);
      fill<<<264, 256>>>(A[s], M * K, 11 + s);
      fill<<<264, 256>>>(B[s], K * N, 21 + s);
    }
    auto call = [&](int m, int s) {
      loom_tensor tC = loom_tensor_2d(C[s], LOOM_BF16, M, N, N), tA = loom_tensor_2d(A[s], LOOM_BF16, M, K, K);
      loom_tensor tB = loom_tensor_2d(B[s], LOOM_BF16, K, N, N), tR = loom_tensor_1d(R[s], LOOM_F32, M);
      return m < 0 ? loom_gemm_reduce(tC, tR, tA, tB, 0) : loom_gemm_reduce_mapping(m, tC, tR, tA, tB, 0);
    };
    std::vector<std::vector<float>> t(n + 1);
    for (int round = 0; round < 2; ++round)
      for (int m = -1; m < n; ++m) {
        for (int w = 0; w < 5; ++w) call(m, w % sets);
        for (int r = 0; r < 30; ++r) {
          cudaEventRecord(e0);
          int rc = call(m, r % sets);
          cudaEventRecord(e1);
          cudaEventSynchronize(e1);
          float ms = 0;
          cudaEventElapsedTime(&ms, e0, e1);
          if (rc == 0) t[m + 1].push_back(ms);
        }
      }
    std::vector<double> med(n + 1);
    for (int m = 0; m <= n; ++m) {
      std::sort(t[m].begin(), t[m].end());
      med[m] = t[m].empty() ? 0 : t[m][t[m].size() / 2];
    }
    loom_tensor tC = loom_tensor_2d(C[0], LOOM_BF16, M, N, N), tA = loom_tensor_2d(A[0], LOOM_BF16, M, K, K);
    loom_tensor tB = loom_tensor_2d(B[0], LOOM_BF16, K, N, N), tR = loom_tensor_1d(R[0], LOOM_F32, M);
    const int pick = loom_gemm_reduce_pick(tC, tR, tA, tB, 0);
    double best = 1e30;
    for (int m = 1; m <= n; ++m) best = std::min(best, med[m]);
    std::printf("| %lldx%lldx%lld |", M, N, K);
    for (int m = 1; m <= n; ++m) std::printf(" %.4f |", med[m]);
    std::printf(" m%d | %.4f | %.3f |\n", pick, med[0], best / med[0]);
    for (int s = 0; s < sets; ++s) cudaFree(A[s]), cudaFree(B[s]), cudaFree(C[s]), cudaFree(R[s]);
  }
  return 0;
}
