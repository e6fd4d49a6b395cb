#!/usr/bin/env bash
# Session 30, device call 2 (prepare1.sh's binaries in build-gpu/s30g): examples/gemm_residual with the axpy
# epilogue and six larger-tile candidates (new) against the program before (old: one 128 x 128 mapping).
#   1. gr_e2e (new): every shape through the pick, every mapping by index; memcheck / racecheck / synccheck
#      on every mapping by index at 129x257x65 and 408x520x200;
#   2. bench/fused_bench.py gemm_residual, listed + 30-shape sweep: new (every mapping timed), old, new again.
set -u
S=build-gpu/s30g
H=bench/results/2026-12-02-h200-residual
C="bash $H/r1.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $T/r1-smi.txt 2>&1
( timeout 150 $S/gr_e2e
  for shape in 129x257x65 408x520x200; do
    for tool in memcheck racecheck synccheck; do
      echo "== compute-sanitizer --tool $tool, every mapping by index, $shape"
      timeout 100 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gr_e2e --by-index $shape || echo "FAIL $tool $shape"
    done
  done ) > $T/r1-gr-e2e.log 2>&1
echo "gr e2e: $(grep -c FAIL $T/r1-gr-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASS' $T/r1-gr-e2e.log | sort | uniq -c | tr '\n' ' ')"
timeout 220 python3 bench/fused_bench.py --lib gemm_residual=$S/lib/libgr_new.so --only gemm_residual --sweep 30 --sweep-cases gemm_residual \
  --by-mapping --out $T/r1-gr-new.md --command "$C" > $T/r1-gr-new.log 2>&1
echo "new rc=$? $(grep -E 'gemm_residual, (listed|sweep) vs' $T/r1-gr-new.md | tr '\n' ' ')"
timeout 120 python3 bench/fused_bench.py --lib gemm_residual=$S/lib/libgr_old.so --only gemm_residual --sweep 30 --sweep-cases gemm_residual \
  --out $T/r1-gr-old.md --command "$C" > $T/r1-gr-old.log 2>&1
echo "old rc=$? $(grep -E 'gemm_residual, (listed|sweep) vs' $T/r1-gr-old.md | tr '\n' ' ')"
timeout 120 python3 bench/fused_bench.py --lib gemm_residual=$S/lib/libgr_new.so --only gemm_residual --sweep 30 --sweep-cases gemm_residual \
  --out $T/r1-gr-new2.md --command "$C" > $T/r1-gr-new2.log 2>&1
echo "new2 rc=$? $(grep -E 'gemm_residual, (listed|sweep) vs' $T/r1-gr-new2.md | tr '\n' ' ')"
tar czf $OUT/r1.tgz -C $T .
