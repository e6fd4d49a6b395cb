// How many tensor-core cycles a Hopper SM spends per wgmma m64nNk16 (bf16, both operands from shared
// memory), by N, by the number of warpgroups issuing, and by the number of independent accumulator
// chains per warpgroup. One block per SM, every warpgroup loops ITERS times over
//   wgmma_fence; CHAINS x (4 wgmma k16 steps into accumulator c); commit; wait<1>
// on operands that stay in shared memory (no loads: the tensor pipe's own rate).
// Prints cycles per wgmma per SM and the dense MAC/clk per SM against 2048 (H100/H200: 989 TFLOP/s / (132 SMs x 1.83 GHz x 2)).
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime bench/micro/wgmma_rate.cu -o wgmma_rate
#include <cuda_bf16.h>

#include <cstdio>
#include <cstdint>

#include "loom/runtime.cuh"

constexpr int kIters = 4096;

template <int N, int CHAINS>
__global__ void __launch_bounds__(384) rate(long long* cycles, float* sink) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  // A: 64 x 64 bf16, K-major, 128-byte swizzle (8 KB); B: 64 (K) x 256 bf16, N-major, 128-byte swizzle (32 KB).
  for (int i = threadIdx.x; i < (8192 + 32768) / 4; i += blockDim.x) reinterpret_cast<uint32_t*>(smem)[i] = 0x3c003c00u ^ (i & 7);
  loom::rt::fence_proxy_async_shared();
  __syncthreads();
  const void* A = smem;
  const void* B = smem + 8192;
  float acc[CHAINS][N / 2];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c)
#pragma unroll
    for (int i = 0; i < N / 2; ++i) acc[c][i] = 0.f;
  const long long t0 = clock64();
  for (int it = 0; it < kIters; ++it) {
    loom::rt::wgmma_fence();
#pragma unroll
    for (int c = 0; c < CHAINS; ++c)
#pragma unroll
      for (int ks = 0; ks < 4; ++ks)
        loom::rt::wgmma_m64nNk16<N, __nv_bfloat16, 0, 1>(acc[c], loom::rt::desc_k_major(A, loom::Swizzle::B128, 64, 16 * ks),
                                                          loom::rt::desc_mn_major(B, loom::Swizzle::B128, 64, 16 * ks), 1);
    loom::rt::wgmma_commit();
    loom::rt::wgmma_wait<1>();
  }
  loom::rt::wgmma_wait<0>();
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) loom::rt::wgmma_fence_operand(acc[c]);
  const long long t1 = clock64();
  float s = 0;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c)
#pragma unroll
    for (int i = 0; i < N / 2; ++i) s += acc[c][i];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

template <int N, int CHAINS>
void run(int wgs, int sms) {
  long long* cyc;
  float* sink;
  cudaMalloc(&cyc, sms * sizeof(long long));
  cudaMalloc(&sink, sms * 384 * sizeof(float));
  const int smem = 8192 + 32768 + 1024;
  cudaFuncSetAttribute(rate<N, CHAINS>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  rate<N, CHAINS><<<sms, 128 * wgs, smem>>>(cyc, sink);  // warm-up
  rate<N, CHAINS><<<sms, 128 * wgs, smem>>>(cyc, sink);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { std::printf("error %s\n", cudaGetErrorString(e)); std::exit(1); }
  long long h[1024];
  cudaMemcpy(h, cyc, sms * sizeof(long long), cudaMemcpyDeviceToHost);
  double mean = 0;
  for (int i = 0; i < sms; ++i) mean += double(h[i]) / sms;
  const double wgmmas = double(kIters) * 4 * CHAINS * wgs;  // per SM
  const double macs = wgmmas * 64.0 * N * 16;
  std::printf("| %d | %d | %d | %.1f | %.0f | %.2f |\n", N, wgs, CHAINS, mean / wgmmas, macs / mean, macs / mean / 2048.0);
  cudaFree(cyc);
  cudaFree(sink);
}

int main() {
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  std::printf("# %s, %d SMs; %d iterations of 4 x CHAINS wgmma per warpgroup, one block per SM\n\n", p.name, p.multiProcessorCount, kIters);
  std::printf("| N | warpgroups | chains per warpgroup | cycles per wgmma (SM) | MAC/clk per SM | of 2048 |\n|---|---|---|---|---|---|\n");
  const int sms = p.multiProcessorCount;
  for (int w = 1; w <= 3; ++w) {
    run<64, 1>(w, sms);
    run<128, 1>(w, sms);
    run<256, 1>(w, sms);
  }
  run<64, 2>(1, sms);
  run<128, 2>(1, sms);
  run<64, 2>(2, sms);
  run<128, 2>(2, sms);
  return 0;
}
