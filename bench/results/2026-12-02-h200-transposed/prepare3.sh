#!/usr/bin/env bash
# On the development machine: r3.sh's binaries into build-gpu/s31g: examples/gemm_bias_act (GELU, 13 mappings)
# + gba_candidates.sh's eight transposed tiles (mappings 13-20) -> lib/libgba_t.so (as bench/fused.sh builds it)
# and gba_t_e2e (tests/gpu/gemm_bias_act_correctness.cu, GELU).
set -eu
S=build-gpu/s31g
H=bench/results/2026-12-02-h200-transposed
L=${LOOM:-build/loom}
mkdir -p $S/lib $S/src
bash $H/gba_candidates.sh examples/gemm_bias_act/gemm_bias_act.loom $S/src/gemm_bias_act.loom
$L compile $S/src/gemm_bias_act.loom -o $S/gba_t
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
SO=(-std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime)
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
$NV "${SO[@]}" -I$S/gba_t -Xptxas -v $S/gba_t/gemm_bias_act.cu -o $S/lib/libgba_t.so -Xlinker --version-script=$S/exports.map \
  -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/gba_t.log 2>&1 && echo "ok libgba_t" || echo "FAIL libgba_t" &
$NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -DLOOM_ACT=2 -Iruntime -Itests/gpu -I$S/gba_t \
  tests/gpu/gemm_bias_act_correctness.cu $S/gba_t/gemm_bias_act.cu -lcuda -o $S/gba_t_e2e > $S/gba_t_e2e.log 2>&1 && echo "ok gba_t_e2e" || echo "FAIL gba_t_e2e" &
wait
