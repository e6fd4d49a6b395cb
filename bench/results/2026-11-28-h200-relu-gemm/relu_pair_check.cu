// relu_pair<T> (runtime/loom/runtime.cuh) against the scalar __hmax(x, 0) the per-element path uses,
// for every 16-bit pattern in both halves (bf16 and f16): the same bits, or both NaN-free zeros.
// nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime relu_pair_check.cu -o relu_pair_check
#include <cstdio>
#include "loom/runtime.cuh"
template <class T>
__global__ void check(unsigned long long* bad) {
  const unsigned v = blockIdx.x * blockDim.x + threadIdx.x;  // 0 .. 65535
  const unsigned u = (v * 40503u) & 0xffffu;                 // another pattern for the high half
  const std::uint32_t w = v | (u << 16);
  const std::uint32_t r = loom::rt::relu_pair<T>(w);
  T lo, hi;
  loom::rt::unpack_pair<T>(w, lo, hi);
  const std::uint32_t e = loom::rt::pack_pair(__hmax(lo, static_cast<T>(0.0f)), __hmax(hi, static_cast<T>(0.0f)));
  if (r != e) atomicAdd(bad, 1ull);
}
int main() {
  unsigned long long* bad;
  cudaMallocManaged(&bad, 2 * sizeof(unsigned long long));
  bad[0] = bad[1] = 0;
  check<__nv_bfloat16><<<256, 256>>>(bad);
  check<__half><<<256, 256>>>(bad + 1);
  cudaDeviceSynchronize();
  std::printf("relu_pair: bf16 %llu mismatches, f16 %llu mismatches of 65536 -> %s\n", bad[0], bad[1],
              bad[0] == 0 && bad[1] == 0 ? "PASS" : "FAIL");
  return bad[0] == 0 && bad[1] == 0 ? 0 : 1;
}
