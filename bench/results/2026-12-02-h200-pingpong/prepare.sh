#!/usr/bin/env bash
# On the development machine (nvcc 13, sm_90a): the kernels r1.sh runs, into build-gpu/s28.
#   gba_pp: examples/gemm_bias_act (GELU, its 12 mappings) + three ping-pong candidates (candidates.sh):
#           m12 128 x 128 a warpgroup, 4 stages; m13 the same, 5 stages; m14 64 x 256 a warpgroup, 4 stages
#           -> lib/libgba_pp.so (as bench/fused.sh builds it) and gba_pp_e2e (tests/gpu/gemm_bias_act_correctness.cu)
#   gemm_pp: examples/gemm (15 mappings) + the same three candidates (m15-m17) -> gm_pp (bench/gemm_mappings.cu)
set -eu
S=build-gpu/s28
R=bench/results/2026-12-02-h200-pingpong
L=${LOOM:-build/loom}
mkdir -p $S/lib
bash $R/candidates.sh $S/src
$L compile $S/src/gba_pp.loom -o $S/gba_pp
$L compile $S/src/gemm_pp.loom -o $S/gemm_pp/gemm
NV=/usr/local/cuda/bin/nvcc
command -v nvcc >/dev/null && NV=$(command -v nvcc)
SO=(-std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime)
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
$NV "${SO[@]}" -I$S/gba_pp -Xptxas -v $S/gba_pp/gemm_bias_act.cu -o $S/lib/libgba_pp.so -Xlinker --version-script=$S/exports.map \
  -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/gba_pp.log 2>&1 && echo "ok libgba_pp" || echo "FAIL libgba_pp" &
$NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -DLOOM_ACT=2 -Iruntime -Itests/gpu -I$S/gba_pp \
  tests/gpu/gemm_bias_act_correctness.cu $S/gba_pp/gemm_bias_act.cu -lcuda -o $S/gba_pp_e2e > $S/gba_pp_e2e.log 2>&1 && echo "ok gba_pp_e2e" || echo "FAIL gba_pp_e2e" &
wait
$NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I$S/gemm_pp/gemm -DLOOM_HAVE_GEMM \
  -DLOOM_MAPPINGS=18 bench/gemm_mappings.cu -lcuda -lcublas -o $S/gm_pp > $S/gm_pp.log 2>&1 && echo "ok gm_pp" || echo "FAIL gm_pp"
