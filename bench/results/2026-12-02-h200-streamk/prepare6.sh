#!/usr/bin/env bash
# On the development machine: r6.sh's binaries into build-gpu/s29r: examples/relu_gemm with its 128 x 256
# multicast candidate 4 stages deep and two more multicast candidates (128 x 192, 192 x 192; new/, 12
# mappings) and as at the previous commit (old/, OLD_RELU_GEMM), each as bench/fused_bench.py's library;
# rg_e2e (tests/gpu/relu_gemm_correctness.cu on new/).
set -eu
S=build-gpu/s29r
L=${LOOM:-build/loom}
OLD=${OLD_RELU_GEMM:?the previous examples/relu_gemm/relu_gemm.loom}
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p $S/lib
$L compile examples/relu_gemm/relu_gemm.loom -o $S/new/relu_gemm
$L compile $OLD -o $S/old/relu_gemm
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
for v in new old; do
  $NV -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime -I$S/$v/relu_gemm $S/$v/relu_gemm/relu_gemm.cu \
    -o $S/lib/librg_$v.so -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda \
    > $S/lib/rg_$v.log 2>&1 && echo "ok librg_$v" || echo "FAIL librg_$v" &
done
$NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -I$S/new/relu_gemm tests/gpu/relu_gemm_correctness.cu \
  $S/new/relu_gemm/relu_gemm.cu -lcuda -lcublas -o $S/rg_e2e > $S/rg_e2e.log 2>&1 && echo "ok rg_e2e" || echo "FAIL rg_e2e" &
wait
