#!/usr/bin/env bash
# Session 50: build-gpu/s50f.tar.xz for r7.sh: relu_gemm as committed (12 mappings) plus relu_alt.loom.part's two
# two-team mappings (alternate(2), one warpgroup a tile: 64 x 256 and 64 x 192; 14), a library for
# bench/fused_bench.py and its correctness binary; est7 (est.cu's kind, for relu_gemm) with the shapes of r7.
set -eu
S=build-gpu/s50f
H=bench/results/2026-12-06-h100-s50
L=${LOOM:-build/loom}
NV=/usr/local/cuda/bin/nvcc
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Itests/gpu"
rm -rf $S; mkdir -p $S/gen/alt $S/bin $S/alt
cat examples/relu_gemm/relu_gemm.loom $H/relu_alt.loom.part > $S/gen/alt/relu_gemm.loom
$L run --cpu $S/gen/alt/relu_gemm.loom --size M=150,N=200,K=70 | tail -1
$L compile $S/gen/alt/relu_gemm.loom -o $S/gen/alt
. bench/results/2026-12-05-h100-s46/so.sh
so $S/alt relu_gemm $S/gen/alt &
$NV $F -I$S/gen/alt tests/gpu/relu_gemm_correctness.cu $S/gen/alt/relu_gemm.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas -o $S/bin/relu_alt &
python3 - $S/gen/alt/relu_gemm.cu > $S/est7.cu <<'PY'
import re, sys
n = len(re.findall(r'^namespace mapping\d+ \{', open(sys.argv[1]).read(), re.M))
print('#include "relu_gemm.cu"\n#include <cstdio>')
print('static loom_tensor t2(int64_t r, int64_t c) { loom_tensor t{}; t.data = reinterpret_cast<void*>(uintptr_t(1) << 20); t.rank = 2; t.dtype = LOOM_BF16;')
print('  t.shape[0] = r; t.shape[1] = c; t.stride[0] = c; t.stride[1] = 1; return t; }')
print('int main() {\n  long long M, N, K;\n  while (std::scanf("%lld %lld %lld", &M, &N, &K) == 3) {')
print('    loom_tensor C = t2(M, N), A = t2(M, K), B = t2(K, N);\n    std::printf("%lldx%lldx%lld", M, N, K);')
for k in range(n):
    print('    std::printf(" %%.1f/%%.0f", mapping%d::estimate_cycles(C, A, B, nullptr, 132), mapping%d::load_bytes(C, A, B, nullptr));' % (k, k))
print('    std::printf("\\n");\n  }\n}')
PY
$NV -std=c++17 -O1 -gencode=arch=compute_90a,code=sm_90a -Iruntime -I$S/gen/alt $S/est7.cu -L/usr/local/cuda/lib64/stubs -lcuda -o $S/bin/est7 &
wait
grep -h "spill" $S/alt/lib/*.log | sort | uniq -c
python3 - > $S/shapes.txt <<'PY'
import re, random
src = open('bench/fused_bench.py').read()
m = re.search(r'def sweep_shapes\(n, seed\):\n((?:    .*\n)+)', src)
ns = {'random': random}; exec('def sweep_shapes(n, seed):\n' + m.group(1), ns)
for s in [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192), (4096, 14336, 4096), (8192, 8192, 1024)] + ns['sweep_shapes'](30, 20261125): print(*s)
PY
tar cf - $S/alt/lib/*.so $S/bin $S/shapes.txt | xz -T2 > build-gpu/s50f.tar.xz
ls -la build-gpu/s50f.tar.xz
