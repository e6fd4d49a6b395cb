// est_add_gemm.cu: as est.cu, for examples/add_gemm's 10 mappings (L = K); -IGEN/add_gemm.
#include "add_gemm.cu"
#include <cstdio>
using Est = double (*)(const loom_tensor&, const loom_tensor&, const loom_tensor&, const loom_tensor&, const loom_tensor&, cudaStream_t, int64_t);
#define E(i) &mapping##i::estimate_cycles,
const Est kEst[] = {E(0) E(1) E(2) E(3) E(4) E(5) E(6) E(7) E(8) E(9)};
loom_tensor mat(int64_t r, int64_t c, int rank = 2) {
  loom_tensor t = {};
  t.data = reinterpret_cast<void*>(uintptr_t(1) << 20);
  t.dtype = LOOM_BF16;
  t.rank = rank;
  t.shape[0] = r; t.shape[1] = c;
  t.stride[0] = rank == 2 ? (c + 7) / 8 * 8 : 1; t.stride[1] = 1;
  return t;
}
int main() {
  long long M, N, K;
  while (std::scanf("%lld %lld %lld", &M, &N, &K) == 3) {
    loom_tensor E_ = mat(M, N), A = mat(M, K), B = mat(K, N), C = mat(M, K), D = mat(K, N);
    std::printf("%lldx%lldx%lld", M, N, K);
    for (auto e : kEst) std::printf(" %.3f", e(E_, A, B, C, D, nullptr, 132) / 1980.0);
    std::printf("\n");
  }
}
