#!/usr/bin/env bash
# Session 46: what r1.sh runs, built on the development machine into build-gpu/s46 and packed as build-gpu/s46.tar.xz.
set -eu
S=build-gpu/s46
H=bench/results/2026-12-05-h100-s46
L=${LOOM:-build/loom}
N=/usr/local/cuda/bin/nvcc
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench"
B=bench/results/2026-12-04-h200-bymap
mkdir -p $S/gen/ext $S/lib $S/bin $S/gen/gemm_kteams
# gemm_bias_act (gelu_fast): committed, and with the candidates appended
LOOM=$L bash tests/gpu/e2e/gemm_bias_act.sh --gen gelu_fast $S/gen > /dev/null
bash $H/gba_cands.sh examples/gemm_bias_act/gemm_bias_act.loom $S/gen/ext/gba.loom
mkdir -p $S/gen/gba_ext_gelu_fast
sed "s/act_thread = bias_gelu_thread on/act_thread = bias_gelu_fast_thread on/" $S/gen/ext/gba.loom > $S/gen/gba_ext_gelu_fast/gemm_bias_act.loom
$L compile $S/gen/gba_ext_gelu_fast/gemm_bias_act.loom -o $S/gen/gba_ext_gelu_fast
python3 $B/labels.py $S/gen/ext/gba.loom > $S/gen/gba_ext.labels
. $H/so.sh
so $S gelu-fast $S/gen/gemm_bias_act_gelu_fast
so $S gelu-fast-ext $S/gen/gba_ext_gelu_fast
$N $F -DLOOM_ACT=4 -Itests/gpu -I$S/gen/gba_ext_gelu_fast tests/gpu/gemm_bias_act_correctness.cu \
  $S/gen/gba_ext_gelu_fast/gemm_bias_act.cu -L/usr/local/cuda/lib64/stubs -lcuda -o $S/bin/gba_ext
# gemm with kteams(2) as its one mapping (bench/run.sh --prepare's gen/gemm_kteams), and examples/gemm + batched_gemm
sed -f tests/gpu/e2e/kteams.sed examples/gemm/gemm.loom | awk '/^mapping sm_90a when\(/ { exit } { print }' > $S/gen/gemm_kteams/gemm_kteams.loom
$L compile $S/gen/gemm_kteams/gemm_kteams.loom -o $S/gen/gemm_kteams
$N $F -I$S/gen/gemm_kteams -DLOOM_HAVE_GEMM tests/gpu/gemm_correctness.cu $S/gen/gemm_kteams/gemm.cu \
  -L/usr/local/cuda/lib64/stubs -lcuda -o $S/bin/gemm_kteams
$L compile examples/gemm/gemm.loom -o $S/gen/gemm
$L compile examples/batched_gemm/batched_gemm.loom -o $S/gen/batched_gemm
$N $F -I$S/gen/gemm -I$S/gen/batched_gemm -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM tests/gpu/gemm_correctness.cu \
  $S/gen/gemm/gemm.cu $S/gen/batched_gemm/batched_gemm.cu -L/usr/local/cuda/lib64/stubs -lcuda -o $S/bin/gemm_e2e
# examples/gemm + the width candidates, in bench/gemm_mappings.cu
bash $H/widths.sh $S/gen/widths
$L compile $S/gen/widths/gemm.loom -o $S/gen/widths
$N $F -I$S/gen/widths -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=30 bench/gemm_mappings.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas -o $S/gm
tar cf - $S/lib/*.so $S/bin/gba_ext $S/bin/gemm_kteams $S/bin/gemm_e2e $S/gm $S/gen/gba_ext.labels | xz -T2 > build-gpu/s46.tar.xz
