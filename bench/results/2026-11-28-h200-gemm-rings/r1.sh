#!/usr/bin/env bash
# Session 23 (device): gemm_rings.loom (examples/gemm + mapping 8 with 8 stages as m14, mapping 1
# with 6 as m15, mapping 13 with 6 as m16): every mapping timed on its own over the GEMM sweep,
# seeds 20261125 and 20261127. Binary build-gpu/s23r/gm_rings, built as bench/gemm_mappings.sh does
# (-DLOOM_MAPPINGS=17) from `loom compile gemm_rings.loom`.
set -u
B=build-gpu/s23r/gm_rings
for seed in 20261125 20261127; do
  timeout 260 $B --out $OUT/r1-sweep-$seed.md --sweep 40 --sweep-seed $seed \
    --command "bash bench/results/2026-11-28-h200-gemm-rings/r1.sh" > $OUT/r1-sweep-$seed.log 2>&1
  echo "seed $seed rc=$?"
  tail -4 $OUT/r1-sweep-$seed.md
done
