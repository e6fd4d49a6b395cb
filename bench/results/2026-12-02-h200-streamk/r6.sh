#!/usr/bin/env bash
# Session 29, device call 6 (prepare6.sh's binaries in build-gpu/s29r): examples/relu_gemm's multicast candidates.
#   1. rg_e2e: every shape through the pick, every mapping by index; memcheck / racecheck / synccheck on every
#      mapping by index at 129x257x65;
#   2. bench/fused_bench.py relu_gemm, listed + 30-shape sweep: the new program (every mapping timed), then the old one.
set -u
S=build-gpu/s29r
H=bench/results/2026-12-02-h200-streamk
C="bash $H/r6.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
( timeout 120 $S/rg_e2e
  for tool in memcheck racecheck synccheck; do
    echo "== compute-sanitizer --tool $tool, every mapping by index, 129x257x65"
    timeout 100 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/rg_e2e --by-index 129x257x65 || echo "FAIL $tool"
  done ) > $T/r6-rg-e2e.log 2>&1
echo "rg e2e: $(grep -c FAIL $T/r6-rg-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASS' $T/r6-rg-e2e.log | sort | uniq -c | tr '\n' ' ')"
timeout 200 python3 bench/fused_bench.py --lib relu_gemm=$S/lib/librg_new.so --only relu_gemm --sweep 30 --sweep-cases relu_gemm \
  --by-mapping --out $T/r6-rg-new.md --command "$C" > $T/r6-rg-new.log 2>&1
echo "new rc=$? $(grep -E 'relu_gemm, (listed|sweep) vs' $T/r6-rg-new.md | tr '\n' ' ')"
timeout 120 python3 bench/fused_bench.py --lib relu_gemm=$S/lib/librg_old.so --only relu_gemm --sweep 30 --sweep-cases relu_gemm \
  --out $T/r6-rg-old.md --command "$C" > $T/r6-rg-old.log 2>&1
echo "old rc=$? $(grep -E 'relu_gemm, (listed|sweep) vs' $T/r6-rg-old.md | tr '\n' ' ')"
cp $T/r6* $OUT/
