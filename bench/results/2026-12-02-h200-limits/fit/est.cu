// est.cu (nvcc -std=c++17 -gencode=arch=compute_90a,code=compute_90a -Iruntime -IGEN/gemm est.cu -lcuda): host-only,
// every mapping's estimate_cycles at the shapes on stdin (M N K per line), 132 SMs, as the
// bench allocates (row strides rounded up to 8 elements, 256-byte aligned bases).
#include "gemm.cu"
#include <cstdio>
using Est = double (*)(const loom_tensor&, const loom_tensor&, const loom_tensor&, cudaStream_t, int64_t);
#define E(i) &mapping##i::estimate_cycles,
const Est kEst[] = {E(0) E(1) E(2) E(3) E(4) E(5) E(6) E(7) E(8) E(9) E(10) E(11) E(12) E(13) E(14) E(15) E(16) E(17) E(18) E(19) E(20) E(21) E(22)};
loom_tensor mat(int64_t r, int64_t c) {
  loom_tensor t = {};
  t.data = reinterpret_cast<void*>(uintptr_t(1) << 20);
  t.dtype = LOOM_BF16;
  t.rank = 2;
  t.shape[0] = r; t.shape[1] = c;
  t.stride[0] = (c + 7) / 8 * 8; t.stride[1] = 1;
  return t;
}
int main() {
  long long M, N, K;
  while (std::scanf("%lld %lld %lld", &M, &N, &K) == 3) {
    loom_tensor C = mat(M, N), A = mat(M, K), B = mat(K, N);
    std::printf("%lldx%lldx%lld", M, N, K);
    for (auto e : kEst) std::printf(" %.3f", e(C, A, B, nullptr, 132) / 1980.0);
    std::printf("\n");
  }
}
