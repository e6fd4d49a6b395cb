#!/usr/bin/env bash
# Session 50: build-gpu/s50c.tar.xz for r3.sh (this tree's loom): gemm_bias_act (GELU) as committed plus
# gba_alt.loom.part's four two-team mappings (alternate(2), one warpgroup a tile: 128 x 192; 128 x 128 and
# 128 x 192 on clusters of 2 sharing B; 192 x 128), 23 mappings, as a library for bench/fused_bench.py, and
# its correctness binary.
set -eu
S=build-gpu/s50c
H=bench/results/2026-12-06-h100-s50
L=${LOOM:-build/loom}
NV=/usr/local/cuda/bin/nvcc
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Itests/gpu"
rm -rf $S; mkdir -p $S/gen/alt $S/bin $S/alt
cat examples/gemm_bias_act/gemm_bias_act.loom $H/gba_alt.loom.part > $S/gen/alt/gemm_bias_act.loom
$L run --cpu $S/gen/alt/gemm_bias_act.loom --size M=150,N=200,K=70 | tail -1
$L compile $S/gen/alt/gemm_bias_act.loom -o $S/gen/alt
. bench/results/2026-12-05-h100-s46/so.sh
so $S/alt gemm_bias_act_gelu $S/gen/alt &
$NV $F -DLOOM_ACT=2 -I$S/gen/alt tests/gpu/gemm_bias_act_correctness.cu $S/gen/alt/gemm_bias_act.cu \
  -L/usr/local/cuda/lib64/stubs -lcuda -o $S/bin/gba_alt &
wait
grep -h "spill" $S/alt/lib/*.log | sort | uniq -c
tar cf - $S/alt/lib/*.so $S/bin | xz -T2 > build-gpu/s50c.tar.xz
ls -la build-gpu/s50c.tar.xz
