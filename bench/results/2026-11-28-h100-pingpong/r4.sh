#!/usr/bin/env bash
# Session 21 round 4: examples/gemm's 13 mappings (m0-m12, as committed) + m13 = the ping-pong kernel
# (128 x 128 a warpgroup, alternate(2)) + m14 = m13 with multicast(2) (gemm_all.loom), every mapping
# timed on its own beside cuBLAS: the 40-shape sweep (seed 20261125) and the fixed table.
set -u
cd "$(dirname "$0")/../../.."
B=build-gpu/s21; mkdir -p "$OUT"; t0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 280 $B/gm_all --out $OUT/sweep.md --sweep 40 --sweep-seed 20261125 > $OUT/sweep.log 2>&1; echo "sweep rc=$? $(( $(date +%s) - t0 )) s"
grep -E "^- (pick|best)" $OUT/sweep.md
timeout 200 $B/gm_all --out $OUT/table.md > $OUT/table.log 2>&1; echo "table rc=$? $(( $(date +%s) - t0 )) s"
grep -E "^- (pick|best)" $OUT/table.md
