// The launcher's cost model offline for examples/relu_gemm (12 mappings; as estimates_add_gemm.cu): every mapping's
// estimate_cycles() for shapes read from stdin ("MxNxK"), printed as "shape e0 ... e11". Build and run as
// estimates_add_gemm.cu, with -IGEN/relu_gemm (for the 10-mapping program of the previous commit, drop E(10) E(11)).
#include <cstdio>
#include "relu_gemm.cu"
#define E(i) std::printf(" %.0f", mapping##i::estimate_cycles(tC, tA, tB, nullptr, 132));
static loom_tensor t2(long long r, long long c) {
  loom_tensor t{};
  t.data = reinterpret_cast<void*>(uintptr_t{1} << 20);
  t.rank = 2; t.dtype = LOOM_BF16; t.shape[0] = r; t.shape[1] = c; t.stride[0] = (c + 7) / 8 * 8; t.stride[1] = 1;
  return t;
}
int main() {
  long long m, n, k;
  while (std::scanf(" %lldx%lldx%lld", &m, &n, &k) == 3) {
    loom_tensor tC = t2(m, n), tA = t2(m, k), tB = t2(k, n);
    std::printf("%lldx%lldx%lld", m, n, k);
    E(0) E(1) E(2) E(3) E(4) E(5) E(6) E(7) E(8) E(9) E(10) E(11)
    std::printf("\n");
  }
}
