#!/usr/bin/env bash
# Session 22 round 6 (device): examples/gemm with its 14th mapping (64 x 64, splitk(4)): the GEMM
# correctness test (tests/gpu/gemm_correctness.cu against this checkout's gemm and batched_gemm,
# every mapping by index), compute-sanitizer on the shape the new mapping is picked for, then every
# mapping timed over the fixed table and the sweep (seed 20261125) and a second sweep (seed 20261127).
set -u
cd "$(dirname "$0")/../../.."
B=build-gpu/s22; mkdir -p "$OUT"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 200 $B/gemm_e2e > $OUT/r6-correctness.log 2>&1; echo "correctness rc=$?"; grep -c "| ok" $OUT/r6-correctness.log; grep -i "fail" $OUT/r6-correctness.log | head
for tool in memcheck racecheck synccheck; do
  timeout 120 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $B/gemm_e2e --only 274x176x6136 --runs 1 > $OUT/r6-$tool.log 2>&1; echo "$tool rc=$?"; tail -2 $OUT/r6-$tool.log
done
timeout 150 $B/gm_final --out $OUT/r6-table.md --command "bash bench/results/2026-11-28-h200-gemm-clocks-tiles/r6.sh" > /dev/null 2>&1; echo "table rc=$?"
timeout 150 $B/gm_final --out $OUT/r6-sweep-20261125.md --sweep 40 --sweep-seed 20261125 --command "bash bench/results/2026-11-28-h200-gemm-clocks-tiles/r6.sh" > /dev/null 2>&1; echo "sweep rc=$?"
timeout 150 $B/gm_final --out $OUT/r6-sweep-20261127.md --sweep 40 --sweep-seed 20261127 --command "bash bench/results/2026-11-28-h200-gemm-clocks-tiles/r6.sh" > /dev/null 2>&1; echo "sweep2 rc=$?"
tail -3 $OUT/r6-*.md
