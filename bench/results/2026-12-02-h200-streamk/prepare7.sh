#!/usr/bin/env bash
# On the development machine: r7.sh's binaries into build-gpu/s29g: examples/gemm_residual with two
# when(fastest) candidates after its one mapping (GR: a program path; bench/results/2026-12-02-h200-streamk's
# round 7 used the candidates 128 x 128 multicast(2) 5 stages and 192 x 128 on three warpgroups, 4 stages),
# as bench/fused_bench.py's library (lib/libgr.so), and gr_e2e (tests/gpu/gemm_residual_correctness.cu).
set -eu
S=build-gpu/s29g
L=${LOOM:-build/loom}
GR=${GR:?the program}
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p $S/lib
$L compile $GR -o $S/gen/gemm_residual
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
d=$S/gen/gemm_residual
$NV -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime -I$d $d/gemm_residual.cu -o $S/lib/libgr.so \
  -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/gr.log 2>&1 && echo "ok libgr" || echo "FAIL libgr" &
$NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -I$d tests/gpu/gemm_residual_correctness.cu \
  $d/gemm_residual.cu -lcuda -o $S/gr_e2e > $S/gr_e2e.log 2>&1 && echo "ok gr_e2e" || echo "FAIL gr_e2e" &
wait
