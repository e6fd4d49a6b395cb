#!/usr/bin/env bash
# Round 7 on the GPU machine: examples/batched_gemm as committed (mapping 13 = 64 x 64 tiles, 128-deep
# K steps, 6 stages) on the batched sweep, alternating with r2's build of its first form (bm_base:
# 64-deep steps, 8 stages). bm5 is built as bm_base (r2.sh) against build-gpu/s26/gen5/batched_gemm.
set -u
R=$(mktemp -d)
for round in 1 2; do
  for v in 5 _base; do
    timeout 100 build-gpu/s26/bm$v --out $R/r7-bm$v-$round.md --sweep 40 --sweep-seed 20261125 \
      --command "bash bench/results/2026-11-29-h200-gemm-small/r7.sh" > /dev/null 2>&1
    echo "bm$v round $round rc=$? $(grep 'pick / cuBLAS: geomean' $R/r7-bm$v-$round.md)"
  done
done
tar czf $OUT/r7.tar.gz -C $R .
