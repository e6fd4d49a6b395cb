// The launcher's cost model offline for examples/add_gemm (10 mappings): every mapping's estimate_cycles()
// for shapes read from stdin ("MxNxK", L = K), printed as "shape e0 ... e9" (as
// ../2026-12-02-h200-pingpong/estimates.cu does for gemm and gemm_bias_act). Host code only:
//   nvcc -std=c++17 -O1 -gencode=arch=compute_90a,code=sm_90a -Iruntime -IGEN/add_gemm estimates_add_gemm.cu \
//        -L/usr/local/cuda/lib64/stubs -lcuda   (run with a libcuda.so.1 on LD_LIBRARY_PATH, the stub will do)
#include <cstdio>
#include "add_gemm.cu"
#define E(i) std::printf(" %.0f", mapping##i::estimate_cycles(tE, tA, tB, tC, tD, nullptr, 132));
static loom_tensor t2(long long r, long long c) {
  loom_tensor t{};
  t.data = reinterpret_cast<void*>(uintptr_t{1} << 20);
  t.rank = 2; t.dtype = LOOM_BF16; t.shape[0] = r; t.shape[1] = c; t.stride[0] = (c + 7) / 8 * 8; t.stride[1] = 1;
  return t;
}
int main() {
  long long m, n, k;
  while (std::scanf(" %lldx%lldx%lld", &m, &n, &k) == 3) {
    loom_tensor tE = t2(m, n), tA = t2(m, k), tB = t2(k, n), tC = t2(m, k), tD = t2(k, n);
    std::printf("%lldx%lldx%lld", m, n, k);
    E(0) E(1) E(2) E(3) E(4) E(5) E(6) E(7) E(8) E(9)
    std::printf("\n");
  }
}
