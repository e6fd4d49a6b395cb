#!/usr/bin/env bash
# Session 30, device call 4 (prepare2.sh's binaries in build-gpu/s30h; the old program's library from
# prepare1.sh in build-gpu/s30g): the committed examples/gemm_residual (four mappings).
#   1. e2e_gen: every shape through the pick, every mapping by index; memcheck / racecheck / synccheck on
#      every mapping by index at 129x257x65 and 408x520x200; memcheck at 128x128x64;
#   2. e2e_global (C read from global memory by the threads): every shape, every mapping by index; memcheck by
#      index at 129x257x65 and 408x520x200;
#   3. bench/fused_bench.py gemm_residual, listed + 30-shape sweep: committed, old (one 128 x 128 mapping), committed.
set -u
S=build-gpu/s30h
O=build-gpu/s30g
H=bench/results/2026-12-02-h200-residual
C="bash $H/r2.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
( timeout 150 $S/e2e_gen
  for shape in 129x257x65 408x520x200; do
    for tool in memcheck racecheck synccheck; do
      echo "== compute-sanitizer --tool $tool, every mapping by index, $shape"
      timeout 100 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/e2e_gen --by-index $shape || echo "FAIL $tool $shape"
    done
  done
  echo "== compute-sanitizer --tool memcheck, 128x128x64"
  timeout 60 $SAN --tool memcheck --error-exitcode 99 --print-limit 20 $S/e2e_gen --only 128x128x64 || echo "FAIL memcheck 128x128x64"
  echo "== C from global"
  timeout 150 $S/e2e_global || echo "FAIL global"
  for shape in 129x257x65 408x520x200; do
    echo "== compute-sanitizer --tool memcheck, C from global, every mapping by index, $shape"
    timeout 100 $SAN --tool memcheck --error-exitcode 99 --print-limit 20 $S/e2e_global --by-index $shape || echo "FAIL global memcheck $shape"
  done ) > $T/r2-gr-e2e.log 2>&1
echo "gr e2e: $(grep -c FAIL $T/r2-gr-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASS' $T/r2-gr-e2e.log | sort | uniq -c | tr '\n' ' ')"
for r in a b; do
  timeout 120 python3 bench/fused_bench.py --lib gemm_residual=$S/lib/libgr.so --only gemm_residual --sweep 30 --sweep-cases gemm_residual \
    --out $T/r2-gr-committed-$r.md --command "$C" > $T/r2-gr-committed-$r.log 2>&1
  echo "committed $r rc=$? $(grep -E 'gemm_residual, (listed|sweep) vs cuBLAS' $T/r2-gr-committed-$r.md | tr '\n' ' ')"
  if [ $r = a ]; then
    timeout 120 python3 bench/fused_bench.py --lib gemm_residual=$O/lib/libgr_old.so --only gemm_residual --sweep 30 --sweep-cases gemm_residual \
      --out $T/r2-gr-old.md --command "$C" > $T/r2-gr-old.log 2>&1
    echo "old rc=$? $(grep -E 'gemm_residual, (listed|sweep) vs cuBLAS' $T/r2-gr-old.md | tr '\n' ' ')"
  fi
done
tar czf $OUT/r2.tgz -C $T .
