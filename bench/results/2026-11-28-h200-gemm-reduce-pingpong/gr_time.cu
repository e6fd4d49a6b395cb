// Session 22: one generated gemm_reduce (C = A·B, R = row sums) timed on a few shapes: per-launch
// CUDA events after warm-up, median of 30, inputs rotated over 3 copies (> L2 for the large shapes
// only; the same for both programs). Built once per program (both define loom_gemm_reduce):
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -IDIR gr_time.cu DIR/gemm_reduce.cu -lcuda
// Usage: gr_time LABEL  (prints "LABEL MxNxK ms TFLOP/s" lines)
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "gemm_reduce.h"

int main(int argc, char** argv) {
  const char* label = argc > 1 ? argv[1] : "loom";
  const long long shapes[][3] = {{2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192}, {8192, 8192, 1024},
                                 {4096, 14336, 4096}, {3000, 5000, 2000}, {1000, 1000, 1000}};
  for (auto& sh : shapes) {
    const long long M = sh[0], N = sh[1], K = sh[2];
    const int sets = 3;
    std::vector<void*> A(sets), B(sets), C(sets), R(sets);
    for (int s = 0; s < sets; ++s) {
      cudaMalloc(&A[s], M * K * 2);
      cudaMalloc(&B[s], K * N * 2);
      cudaMalloc(&C[s], M * N * 2);
      cudaMalloc(&R[s], M * 4);
      cudaMemset(A[s], 0x3c, M * K * 2);
      cudaMemset(B[s], 0x3c, K * N * 2);
    }
    auto call = [&](int i) {
      const int s = i % sets;
      return loom_gemm_reduce(loom_tensor_2d(C[s], LOOM_BF16, M, N, N), loom_tensor_1d(R[s], LOOM_F32, M),
                              loom_tensor_2d(A[s], LOOM_BF16, M, K, K), loom_tensor_2d(B[s], LOOM_BF16, K, N, N), 0);
    };
    int rc = 0;
    for (int i = 0; i < 5; ++i) rc |= call(i);
    cudaDeviceSynchronize();
    std::vector<float> ms;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int i = 0; i < 30; ++i) {
      cudaEventRecord(a);
      rc |= call(i);
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float t;
      cudaEventElapsedTime(&t, a, b);
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const double med = 0.5 * (ms[14] + ms[15]);
    std::printf("%s %lldx%lldx%lld %.4f ms %.1f TFLOP/s rc %d\n", label, M, N, K, med, 2.0 * M * N * K / (med * 1e-3) / 1e12, rc);
    for (int s = 0; s < sets; ++s) {
      cudaFree(A[s]);
      cudaFree(B[s]);
      cudaFree(C[s]);
      cudaFree(R[s]);
    }
  }
  return 0;
}
