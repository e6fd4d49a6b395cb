#!/usr/bin/env bash
# Session 22 round 7 (device): examples/batched_gemm with gemm's 64 x 64 splitk(4) candidate appended
# (14 mappings): the correctness test (this checkout's gemm and batched_gemm, every mapping by index),
# racecheck on a batched shape the new mapping is picked for, and every batched mapping timed over
# the batched sweeps (seeds 20261125 and 20261127).
set -u
cd "$(dirname "$0")/../../.."
B=build-gpu/s22r7; mkdir -p "$OUT"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 150 $B/gemm_e2e2 > $OUT/r7-correctness.log 2>&1; echo "correctness rc=$?"; grep -c "| ok" $OUT/r7-correctness.log; grep -i "fail" $OUT/r7-correctness.log | head -5
timeout 60 $SAN --tool racecheck --error-exitcode 99 --print-limit 20 $B/gemm_e2e2 --only 3x113x280x3400 --runs 1 > $OUT/r7-racecheck.log 2>&1; echo "racecheck rc=$?"; tail -1 $OUT/r7-racecheck.log
for seed in 20261125 20261127; do
  timeout 100 $B/gm_batched --out $OUT/r7-batched-sweep-$seed.md --sweep 40 --sweep-seed $seed --command "bash bench/results/2026-11-28-h200-gemm-clocks-tiles/r7.sh" > /dev/null 2>&1; echo "sweep $seed rc=$?"
done
