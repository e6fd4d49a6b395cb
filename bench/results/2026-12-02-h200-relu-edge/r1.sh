#!/usr/bin/env bash
# Session 30, device call 1 (prepare1.sh's binaries in build-gpu/s30a): examples/relu_gemm with an edge
# tile's A pairs masked (new) against the previous commit's per-element edge path (old).
#   1. rg_e2e (new): every shape through the pick, every mapping by index; memcheck / racecheck / synccheck
#      on every mapping by index at 129x257x65 and 408x520x200 (row edges in both warpgroups, a K edge);
#   2. bench/fused_bench.py relu_gemm, listed + 30-shape sweep: new (every mapping timed), then old, then
#      new again (pick only: drift).
set -u
S=build-gpu/s30a
H=bench/results/2026-12-02-h200-relu-edge
C="bash $H/r1.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $T/r1-smi.txt 2>&1
( timeout 150 $S/rg_e2e
  for shape in 129x257x65 408x520x200; do
    for tool in memcheck racecheck synccheck; do
      echo "== compute-sanitizer --tool $tool, every mapping by index, $shape"
      timeout 100 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/rg_e2e --by-index $shape || echo "FAIL $tool $shape"
    done
  done ) > $T/r1-rg-e2e.log 2>&1
echo "rg e2e: $(grep -c FAIL $T/r1-rg-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASS' $T/r1-rg-e2e.log | sort | uniq -c | tr '\n' ' ')"
timeout 200 python3 bench/fused_bench.py --lib relu_gemm=$S/lib/librg_new.so --only relu_gemm --sweep 30 --sweep-cases relu_gemm \
  --by-mapping --out $T/r1-rg-new.md --command "$C" > $T/r1-rg-new.log 2>&1
echo "new rc=$? $(grep -E 'relu_gemm, (listed|sweep) vs' $T/r1-rg-new.md | tr '\n' ' ')"
timeout 120 python3 bench/fused_bench.py --lib relu_gemm=$S/lib/librg_old.so --only relu_gemm --sweep 30 --sweep-cases relu_gemm \
  --out $T/r1-rg-old.md --command "$C" > $T/r1-rg-old.log 2>&1
echo "old rc=$? $(grep -E 'relu_gemm, (listed|sweep) vs' $T/r1-rg-old.md | tr '\n' ' ')"
timeout 120 python3 bench/fused_bench.py --lib relu_gemm=$S/lib/librg_new.so --only relu_gemm --sweep 30 --sweep-cases relu_gemm \
  --out $T/r1-rg-new2.md --command "$C" > $T/r1-rg-new2.log 2>&1
echo "new2 rc=$? $(grep -E 'relu_gemm, (listed|sweep) vs' $T/r1-rg-new2.md | tr '\n' ' ')"
tar czf $OUT/r1.tgz -C $T .
