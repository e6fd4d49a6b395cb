#!/usr/bin/env bash
# Session 29, device call 7 (prepare7.sh's binaries in build-gpu/s29g): gemm_residual with two candidates beside
# its one mapping (m0, the program as committed before: the by-mapping table's m0 column is the old program).
#   1. gr_e2e: every shape, every mapping by index; memcheck / racecheck / synccheck by index at 129x257x65;
#   2. bench/fused_bench.py gemm_residual, listed + 30-shape sweep, every mapping timed.
set -u
S=build-gpu/s29g
H=bench/results/2026-12-02-h200-streamk
C="bash $H/r7.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
( timeout 100 $S/gr_e2e
  for tool in memcheck racecheck synccheck; do
    echo "== compute-sanitizer --tool $tool, every mapping by index, 129x257x65"
    timeout 100 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gr_e2e --by-index 129x257x65 || echo "FAIL $tool"
  done ) > $T/r7-gr-e2e.log 2>&1
echo "gr e2e: $(grep -c FAIL $T/r7-gr-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASS' $T/r7-gr-e2e.log | sort | uniq -c | tr '\n' ' ')"
timeout 200 python3 bench/fused_bench.py --lib gemm_residual=$S/lib/libgr.so --only gemm_residual --sweep 30 --sweep-cases gemm_residual \
  --by-mapping --out $T/r7-gr.md --command "$C" > $T/r7-gr.log 2>&1
echo "gr rc=$? $(grep -E 'gemm_residual, (listed|sweep) vs' $T/r7-gr.md | tr '\n' ' ')"
cp $T/r7* $OUT/
