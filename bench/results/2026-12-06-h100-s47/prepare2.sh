#!/usr/bin/env bash
# Session 47: what r2.sh runs, built here into build-gpu/s47b and packed as build-gpu/s47b.tar.xz. The base
# libraries (the committed examples by HEAD's loom) come from prepare2-base.sh (LOOM=<HEAD's loom>); this script
# uses this tree's loom (the dispatcher's tie-break: of equal estimates the mapping that loads the fewest bytes)
# on the examples with cands.sh's three mappings appended: gemm_bias_act (gelu, gelu_fast) and add_gemm as shared
# libraries for fused_bench.py, their correctness binaries, and examples/gemm + the three in bench/gemm_mappings.cu.
set -eu
S=build-gpu/s47b/ext
H=bench/results/2026-12-06-h100-s47
L=${LOOM:-build/loom}
N=/usr/local/cuda/bin/nvcc
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Itests/gpu"
rm -rf $S; mkdir -p $S/gen $S/bin
bash $H/cands.sh examples/gemm_bias_act/gemm_bias_act.loom $S/gba.loom
for a in gelu:bias_gelu_thread gelu_fast:bias_gelu_fast_thread; do
  mkdir -p $S/gen/gemm_bias_act_${a%%:*}
  sed "s/act_thread = bias_gelu_thread on/act_thread = ${a#*:} on/" $S/gba.loom > $S/gen/gemm_bias_act_${a%%:*}/gemm_bias_act.loom
  $L compile $S/gen/gemm_bias_act_${a%%:*}/gemm_bias_act.loom -o $S/gen/gemm_bias_act_${a%%:*}
done
mkdir -p $S/gen/add_gemm $S/gen/gemm
bash $H/cands.sh examples/add_gemm/add_gemm.loom $S/gen/add_gemm/add_gemm.loom
$L compile $S/gen/add_gemm/add_gemm.loom -o $S/gen/add_gemm
# examples/gemm: this session built it as cands.sh on the 24-mapping example; since commit 5fdeb82 the example
# has the three itself (the same 27 mappings)
if [ "$(grep -c '^mapping' examples/gemm/gemm.loom)" -ge 27 ]; then cp examples/gemm/gemm.loom $S/gen/gemm/gemm.loom
else bash $H/cands.sh examples/gemm/gemm.loom $S/gen/gemm/gemm.loom; fi
$L compile $S/gen/gemm/gemm.loom -o $S/gen/gemm
. bench/results/2026-12-05-h100-s46/so.sh
so $S gemm_bias_act_gelu $S/gen/gemm_bias_act_gelu &
so $S gemm_bias_act_gelu_fast $S/gen/gemm_bias_act_gelu_fast
wait
so $S add_gemm $S/gen/add_gemm &
$N $F -DLOOM_ACT=4 -I$S/gen/gemm_bias_act_gelu_fast tests/gpu/gemm_bias_act_correctness.cu \
  $S/gen/gemm_bias_act_gelu_fast/gemm_bias_act.cu -L/usr/local/cuda/lib64/stubs -lcuda -o $S/bin/gba_ext
wait
$N $F -I$S/gen/add_gemm tests/gpu/add_gemm_correctness.cu $S/gen/add_gemm/add_gemm.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas \
  -o $S/bin/add_gemm_ext &
$N $F -I$S/gen/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=27 bench/gemm_mappings.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas \
  -o $S/bin/gm > $S/gm.log 2>&1
wait
tar cf - build-gpu/s47b/base/lib/*.so $S/lib/*.so $S/bin | xz -T2 > build-gpu/s47b.tar.xz
ls -la build-gpu/s47b.tar.xz
