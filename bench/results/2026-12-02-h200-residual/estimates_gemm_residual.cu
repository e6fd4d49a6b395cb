// The launcher's cost model offline for this round's 7-mapping gemm_residual program (prepare1.sh's new/):
// every mapping's estimate_cycles() for the shapes on stdin. Built with nvcc -Iruntime -IGEN/gemm_residual (see
// score.py), run with the stub libcuda on LD_LIBRARY_PATH; score.py scores subsets of the mappings.
#include <cstdio>
#include "gemm_residual.cu"
#define E(i) std::printf(" %.0f", mapping##i::estimate_cycles(tD, tA, tB, tC, 1.0f, nullptr, 132));
static loom_tensor t2(long long r, long long c) {
  loom_tensor t{};
  t.data = reinterpret_cast<void*>(uintptr_t{1} << 20);
  t.rank = 2; t.dtype = LOOM_BF16; t.shape[0] = r; t.shape[1] = c; t.stride[0] = (c + 7) / 8 * 8; t.stride[1] = 1;
  return t;
}
int main() {
  long long m, n, k;
  while (std::scanf(" %lldx%lldx%lld", &m, &n, &k) == 3) {
    loom_tensor tD = t2(m, n), tA = t2(m, k), tB = t2(k, n), tC = t2(m, n);
    std::printf("%lldx%lldx%lld", m, n, k);
    E(0) E(1) E(2) E(3) E(4) E(5) E(6)
    std::printf("\n");
  }
}
