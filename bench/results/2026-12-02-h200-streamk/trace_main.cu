// trace_main.cu: drives a trace.py-instrumented stream-K gemm.cu (included) on one shape and prints, per
// block and turn, the tile, its iterations and the recorded times (ns from the earliest begin), then the
// median time per call over 20 calls (CUDA events). LOOM_SK_DP=1: the same kernel with every tile whole.
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -I. -DTRACE_CU='"trace.cu"'
//        trace_main.cu -lcuda
#include TRACE_CU
#include <cuda_bf16.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void lt_fill(__nv_bfloat16* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed;
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = __float2bfloat16(((h & 0xffff) / 65536.0f - 0.5f));
  }
}

static loom_tensor mat(void* p, int64_t r, int64_t c) {
  loom_tensor t{};
  t.data = p; t.rank = 2; t.dtype = LOOM_BF16; t.shape[0] = r; t.shape[1] = c; t.stride[0] = c; t.stride[1] = 1;
  return t;
}

int main(int argc, char** argv) {
  if (argc < 4) { std::fprintf(stderr, "usage: trace M N K\n"); return 2; }
  const int64_t M = std::atoll(argv[1]), N = std::atoll(argv[2]), K = std::atoll(argv[3]);
  __nv_bfloat16 *A, *B, *C;
  cudaMalloc(&A, M * K * 2); cudaMalloc(&B, K * N * 2); cudaMalloc(&C, M * N * 2);
  lt_fill<<<1024, 256>>>(A, M * K, 1); lt_fill<<<1024, 256>>>(B, K * N, 2);
  const loom_tensor tC = mat(C, M, N), tA = mat(A, M, K), tB = mat(B, K, N);
  for (int i = 0; i < 3; ++i) if (loom_gemm(tC, tA, tB, 0) != 0) { std::fprintf(stderr, "launch failed\n"); return 1; }
  cudaDeviceSynchronize();
  static unsigned long long zero[256][16][8];
  cudaMemcpyToSymbol(lt_trace, zero, sizeof zero);
  loom_gemm(tC, tA, tB, 0);
  cudaDeviceSynchronize();
  static unsigned long long tr[256][16][8];
  cudaMemcpyFromSymbol(tr, lt_trace, sizeof tr);
  unsigned long long t0 = ~0ull;
  for (int b = 0; b < 256; ++b) for (int t = 0; t < 16; ++t) if (tr[b][t][7]) t0 = std::min(t0, tr[b][t][3]);
  std::printf("block,turn,tile,k_lo,k_hi,begin,loop_end,hand_end,end\n");
  for (int b = 0; b < 256; ++b) for (int t = 0; t < 16; ++t) if (tr[b][t][7])
    std::printf("%d,%d,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", b, t, tr[b][t][0], tr[b][t][1], tr[b][t][2], tr[b][t][3] - t0,
                tr[b][t][4] - t0, tr[b][t][5] - t0, tr[b][t][6] - t0);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  std::vector<float> ms;
  for (int i = 0; i < 20; ++i) {
    cudaEventRecord(e0); loom_gemm(tC, tA, tB, 0); cudaEventRecord(e1); cudaEventSynchronize(e1);
    float x; cudaEventElapsedTime(&x, e0, e1); ms.push_back(x);
  }
  std::sort(ms.begin(), ms.end());
  std::printf("# median us %.2f (%s)\n", 1e3 * ms[10], std::getenv("LOOM_SK_DP") ? "whole tiles" : "stream-K");
  return cudaGetLastError() != cudaSuccess;
}
