#!/usr/bin/env bash
# Session 22 round 3 (device): every mapping of gemm_tiles.loom (examples/gemm + six narrower-tile
# candidates m13-m18) timed on its own over the GEMM sweep (seed 20261125) and the fixed table.
set -u
cd "$(dirname "$0")/../../.."
B=build-gpu/s22; mkdir -p "$OUT"
timeout 330 $B/gm_tiles --out $OUT/r3-tiles-sweep.md --sweep 40 --sweep-seed 20261125 --command "bash bench/results/2026-11-28-h200-gemm-clocks-tiles/r3.sh" > $OUT/r3-sweep.log 2>&1; echo "sweep rc=$?"
timeout 200 $B/gm_tiles --out $OUT/r3-tiles-table.md --command "bash bench/results/2026-11-28-h200-gemm-clocks-tiles/r3.sh" > $OUT/r3-table.log 2>&1; echo "table rc=$?"
tail -5 $OUT/r3-tiles-sweep.md $OUT/r3-tiles-table.md
