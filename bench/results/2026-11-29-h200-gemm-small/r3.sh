#!/usr/bin/env bash
# Round 3 on the GPU machine: (1) the GPU end-to-end test of examples/gemm and examples/batched_gemm
# with the 64 x 64 candidate (tests/gpu/e2e/gemm.sh: every shape, every mapping by index, and
# compute-sanitizer memcheck / racecheck / synccheck, mapping 14 forced at 1000^3 and 129x257x65),
# generated into build-gpu/s26/gen by this commit's loom; (2) variant_store.py's probe (gm_store)
# against the base (gm_base), alternating, on both sweeps. Everything lands in $OUT/r3.tar.gz.
set -u
B=build-gpu/s26
C="bash bench/results/2026-11-29-h200-gemm-small/r3.sh"
R=$(mktemp -d)
LOOM_GEN_DIR=$B/gen LOOM_GPU_ONLY='^e2e\.gemm$' bash tests/gpu/run.sh > $R/r3-gpu-tests.log 2>&1
echo "gpu tests rc=$?"; grep -A3 "^STEP" $OUT/gpu-logs/summary.txt | head -4
cp $OUT/gpu-logs/summary.txt $R/r3-gpu-tests-summary.txt
for seed in 20261127 20261125; do
  for round in 1 2; do
    for v in base store; do
      timeout 100 $B/gm_$v --out $R/r3-$v-$seed-$round.md --sweep 40 --sweep-seed $seed --command "$C" > /dev/null 2>&1
      echo "$v $seed round $round rc=$? $(grep 'pick / cuBLAS: geomean' $R/r3-$v-$seed-$round.md)"
    done
  done
done
tar czf $OUT/r3.tar.gz -C $R .
