#!/usr/bin/env bash
# Session 29, device call 5 (prepare5.sh's binaries in build-gpu/s29a): examples/add_gemm's multicast candidates.
#   1. ag_e2e: every shape through the pick, every mapping by index (7-9 the new ones), the --bench table; memcheck /
#      racecheck / synccheck on every mapping by index at 129x257x65 (L = 70);
#   2. bench/fused_bench.py add_gemm, listed + 30-shape sweep: the new program (every mapping timed) and the old one.
set -u
S=build-gpu/s29a
H=bench/results/2026-12-02-h200-streamk
C="bash $H/r5.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
( timeout 200 $S/ag_e2e --bench
  for tool in memcheck racecheck synccheck; do
    echo "== compute-sanitizer --tool $tool, every mapping by index, 129x257x65 (L = 70)"
    timeout 150 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/ag_e2e --by-index 129x257x65 || echo "FAIL $tool"
  done ) > $T/r5-ag-e2e.log 2>&1
echo "ag e2e: $(grep -c FAIL $T/r5-ag-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASS' $T/r5-ag-e2e.log | sort | uniq -c | tr '\n' ' ')"
timeout 240 python3 bench/fused_bench.py --lib add_gemm=$S/lib/libag_new.so --only add_gemm --sweep 30 --by-mapping \
  --out $T/r5-ag-new.md --command "$C" > $T/r5-ag-new.log 2>&1
echo "new rc=$? $(grep -E 'add_gemm, (listed|sweep) vs' $T/r5-ag-new.md | tr '\n' ' ')"
timeout 200 python3 bench/fused_bench.py --lib add_gemm=$S/lib/libag_old.so --only add_gemm --sweep 30 \
  --out $T/r5-ag-old.md --command "$C" > $T/r5-ag-old.log 2>&1
echo "old rc=$? $(grep -E 'add_gemm, (listed|sweep) vs' $T/r5-ag-old.md | tr '\n' ' ')"
cp $T/r5* $OUT/
