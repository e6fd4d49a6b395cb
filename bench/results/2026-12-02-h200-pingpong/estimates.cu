// The launcher's cost model offline: every mapping's estimate_cycles() of a generated gemm or
// gemm_bias_act, for shapes read from stdin (one "MxNxK" per line), printed as "shape e0 e1 ...".
// Host code only (no GPU needed: cluster_slots() falls back to SMs / S without a device). Compare
// with the measured tables of r1.sh to see what a cost-model change would pick (analyze.py).
//   nvcc -std=c++17 -O1 -gencode=arch=compute_90a,code=sm_90a -Iruntime -IGEN -DGBA|-DGEMM -DMAPPINGS=N estimates.cu
#include <cstdio>
#include <cstring>
#ifdef GBA
#include "gemm_bias_act.cu"
#define ARGS C, A, B, bias, nullptr, 132
#else
#include "gemm.cu"
#define ARGS C, A, B, nullptr, 132
#endif
#define E(i) std::printf(" %.0f", mapping##i::estimate_cycles(ARGS));
static loom_tensor t2(long long r, long long c) {
  loom_tensor t{};
  t.data = reinterpret_cast<void*>(uintptr_t{1} << 20);  // aligned: the estimate reads only the address's low bits
  t.rank = 2; t.dtype = LOOM_BF16; t.shape[0] = r; t.shape[1] = c; t.stride[0] = (c + 7) / 8 * 8; t.stride[1] = 1;  // rows padded to 16 bytes, as the harnesses pad them
  return t;
}
int main() {
  long long m, n, k;
  while (std::scanf(" %lldx%lldx%lld", &m, &n, &k) == 3) {
    loom_tensor C = t2(m, n), A = t2(m, k), B = t2(k, n);
    loom_tensor bias{};
    bias.data = C.data; bias.rank = 1; bias.dtype = LOOM_BF16; bias.shape[0] = n; bias.stride[0] = 1;
    (void)bias;
    std::printf("%lldx%lldx%lld", m, n, k);
#if MAPPINGS > 0
    E(0)
#endif
#if MAPPINGS > 1
    E(1)
#endif
#if MAPPINGS > 2
    E(2)
#endif
#if MAPPINGS > 3
    E(3)
#endif
#if MAPPINGS > 4
    E(4)
#endif
#if MAPPINGS > 5
    E(5)
#endif
#if MAPPINGS > 6
    E(6)
#endif
#if MAPPINGS > 7
    E(7)
#endif
#if MAPPINGS > 8
    E(8)
#endif
#if MAPPINGS > 9
    E(9)
#endif
#if MAPPINGS > 10
    E(10)
#endif
#if MAPPINGS > 11
    E(11)
#endif
#if MAPPINGS > 12
    E(12)
#endif
#if MAPPINGS > 13
    E(13)
#endif
#if MAPPINGS > 14
    E(14)
#endif
#if MAPPINGS > 15
    E(15)
#endif
#if MAPPINGS > 16
    E(16)
#endif
#if MAPPINGS > 17
    E(17)
#endif
#if MAPPINGS > 18
    E(18)
#endif
#if MAPPINGS > 19
    E(19)
#endif
    std::printf("\n");
  }
}
