#!/usr/bin/env bash
# Round 3 on the GPU machine: gemm_splits.loom (examples/gemm with this round's split-K tree, plus
# three candidates with clusters of 8: m14 = 128 x 64 tiles splitk(8), m15 = 64 x 64 splitk(8),
# m16 = 128 x 128 splitk(8)): every mapping timed on its own over the GEMM sweep, seeds 20261125
# and 20261127. Binary build-gpu/s25/gm_splits, built as bench/gemm_mappings.sh does
# (-DLOOM_MAPPINGS=17) from `loom compile gemm_splits.loom`.
set -u
B=build-gpu/s25/gm_splits
for seed in 20261125 20261127; do
  timeout 280 $B --out $OUT/r3-sweep-$seed.md --sweep 40 --sweep-seed $seed \
    --command "bash bench/results/2026-11-28-h200-splitk-latency/r3.sh" > $OUT/r3-sweep-$seed.log 2>&1
  echo "seed $seed rc=$?"
  tail -4 $OUT/r3-sweep-$seed.md
done
