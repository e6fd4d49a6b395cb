// The cuBLAS peer of loom's GEMM kernels, shared by bench/gemm_bench.cu and bench/gemm_mappings.cu:
// the same row-major problem through cublasGemmEx / cublasGemmStridedBatchedEx (fp32 compute).
#pragma once

#include <cublas_v2.h>

#include <cstdio>
#include <cstdlib>

#include "gemm_harness.cuh"

#define HX_CUBLAS(call)                                                                      \
  do {                                                                                       \
    cublasStatus_t st_ = (call);                                                             \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                                      \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,             \
                   cublasGetStatusString(st_));                                              \
      std::exit(3);                                                                          \
    }                                                                                        \
  } while (0)

namespace hx {

inline cudaDataType cuda_type(int dtype) {
  switch (dtype) {
    case LOOM_BF16: return CUDA_R_16BF;
    case LOOM_F16: return CUDA_R_16F;
    default: return CUDA_R_32F;
  }
}

// Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets (m, n, k) = (N, M, K), B first.
// A cuBLAS handle on stream s with a 32 MB workspace in *workspace (cudaFree it after
// cublasDestroy), as the benchmarks set cuBLAS up.
inline cublasHandle_t cublas_on(cudaStream_t s, void** workspace) {
  cublasHandle_t h;
  HX_CUBLAS(cublasCreate(&h));
  HX_CUBLAS(cublasSetStream(h, s));
  HX_CUDA(cudaMalloc(workspace, size_t(32) << 20));
  HX_CUBLAS(cublasSetWorkspace(h, *workspace, size_t(32) << 20));
  return h;
}

inline cublasStatus_t cublas_call(cublasHandle_t h, const Problem& p, const Matrix& C, const Matrix& A,
                                  const Matrix& B) {
  const float alpha = 1.0f, beta = 0.0f;
  if (!p.batched)
    return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, int(p.N), int(p.M), int(p.K), &alpha, B.data,
                        cuda_type(B.dtype), int(B.ld), A.data, cuda_type(A.dtype), int(A.ld), &beta,
                        C.data, cuda_type(C.dtype), int(C.ld), CUBLAS_COMPUTE_32F,
                        CUBLAS_GEMM_DEFAULT);
  return cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, int(p.N), int(p.M), int(p.K),
                                    &alpha, B.data, cuda_type(B.dtype), int(B.ld), B.batch_stride,
                                    A.data, cuda_type(A.dtype), int(A.ld), A.batch_stride, &beta,
                                    C.data, cuda_type(C.dtype), int(C.ld), C.batch_stride,
                                    int(p.batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

}  // namespace hx
