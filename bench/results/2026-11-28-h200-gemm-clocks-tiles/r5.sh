#!/usr/bin/env bash
# Session 22 round 5 (device): gemm_sk8.loom (examples/gemm + five split-K candidates m13-m17:
# 128x64 splitk(8), 64x64 W128 splitk(4), 64x64 splitk(8), 64x128 splitk(4), 128x128 splitk(8))
# timed on their own over the fixed table and the GEMM sweep (seed 20261125).
set -u
cd "$(dirname "$0")/../../.."
B=build-gpu/s22; mkdir -p "$OUT"
timeout 200 $B/gm_sk --out $OUT/r5-sk8-table.md --command "bash bench/results/2026-11-28-h200-gemm-clocks-tiles/r5.sh" > $OUT/r5-table.log 2>&1; echo "table rc=$?"
timeout 280 $B/gm_sk --out $OUT/r5-sk8-sweep.md --sweep 40 --sweep-seed 20261125 --command "bash bench/results/2026-11-28-h200-gemm-clocks-tiles/r5.sh" > $OUT/r5-sweep.log 2>&1; echo "sweep rc=$?"
