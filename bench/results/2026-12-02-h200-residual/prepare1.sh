#!/usr/bin/env bash
# On the development machine: r1.sh's binaries into build-gpu/s30g: examples/gemm_residual as committed with
# this round (new/: the axpy epilogue and six when(fastest) candidates) and as before it (old/:
# gemm_residual_before.loom, one 128 x 128 mapping with scale + add, compiled by OLD_LOOM, the previous
# commit's loom), each as bench/fused_bench.py's library; gr_e2e (tests/gpu/gemm_residual_correctness.cu on new/).
set -eu
S=build-gpu/s30g
H=bench/results/2026-12-02-h200-residual
L=${LOOM:-build/loom}
OLD=${OLD_LOOM:?a loom binary built at the previous commit}
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p $S/lib
$L compile examples/gemm_residual/gemm_residual.loom -o $S/new/gemm_residual
$OLD compile $H/gemm_residual_before.loom -o $S/old/gemm_residual
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
for v in new old; do
  d=$S/$v/gemm_residual
  $NV -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime -I$d $d/gemm_residual.cu -o $S/lib/libgr_$v.so \
    -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/gr_$v.log 2>&1 && echo "ok libgr_$v" || echo "FAIL libgr_$v" &
done
d=$S/new/gemm_residual
$NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -I$d tests/gpu/gemm_residual_correctness.cu \
  $d/gemm_residual.cu -lcuda -o $S/gr_e2e > $S/gr_e2e.log 2>&1 && echo "ok gr_e2e" || echo "FAIL gr_e2e" &
wait
