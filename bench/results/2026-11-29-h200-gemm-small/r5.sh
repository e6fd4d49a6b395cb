#!/usr/bin/env bash
# Round 5 on the GPU machine: mapping 14 as 64 x 64 tiles with 128-deep K steps and 6 stages (W=128,
# pipeline(6); r4's m15) instead of 64-deep steps and 8 stages. (1) tests/gpu/e2e/gemm.sh on
# examples/gemm and examples/batched_gemm generated so (build-gpu/s26/gen5); (2) the sweeps with
# the launcher's own picks, gm5 (this mapping 14) alternating with gm_base (r2's, W=64 p8), two
# rounds per seed. gm5 is built as gm_base is (r2.sh) against gen5/gemm.
set -u
B=build-gpu/s26
C="bash bench/results/2026-11-29-h200-gemm-small/r5.sh"
R=$(mktemp -d)
LOOM_GEN_DIR=$B/gen5 LOOM_GPU_ONLY='^e2e\.gemm$' bash tests/gpu/run.sh > $R/r5-gpu-tests.log 2>&1
echo "gpu tests rc=$?"; grep "^e2e.gemm " $OUT/gpu-logs/summary.txt
cp $OUT/gpu-logs/summary.txt $R/r5-gpu-tests-summary.txt
tar xzf $OUT/gpu-logs/logs.tar.gz -C $R 2>/dev/null
for seed in 20261127 20261125; do
  for round in 1 2; do
    for v in 5 _base; do
      timeout 100 $B/gm$v --out $R/r5-gm$v-$seed-$round.md --sweep 40 --sweep-seed $seed --command "$C" > /dev/null 2>&1
      echo "gm$v $seed round $round rc=$? $(grep 'pick / cuBLAS: geomean' $R/r5-gm$v-$seed-$round.md)"
    done
  done
done
tar czf $OUT/r5.tar.gz -C $R .
