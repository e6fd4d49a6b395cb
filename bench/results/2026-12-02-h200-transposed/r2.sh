#!/usr/bin/env bash
# Session 31, device call 2 (prepare2.sh's binaries in build-gpu/s31t2): the committed examples/gemm (23 mappings).
#   1. gemm_e2e: every shape through the pick, every mapping by index; memcheck / racecheck / synccheck on the
#      transposed mappings not sanitized in r1 (17-21) at 129x257x65, memcheck on 15-22 at 1000x1000x1000;
#   2. gm: every mapping beside cuBLAS on the fixed table, on a sweep seed not used to choose the tiles
#      (20261201), and on seed 20261125 again (the pick as committed).
set -u
S=build-gpu/s31t2
H=bench/results/2026-12-02-h200-transposed
C="bash $H/r2.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $T/r2-smi.txt 2>&1
( timeout 150 $S/gemm_e2e
  for tool in memcheck racecheck synccheck; do
    for m in 17 18 19 20 21; do
      echo "== compute-sanitizer --tool $tool, 129x257x65 on mapping $m"
      timeout 60 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gemm_e2e --only 129x257x65 --mapping $m --runs 1 || echo "FAIL $tool $m"
    done
  done
  for m in 15 16 17 18 19 20 21 22; do
    echo "== compute-sanitizer --tool memcheck, 1000x1000x1000 on mapping $m"
    timeout 60 $SAN --tool memcheck --error-exitcode 99 --print-limit 20 $S/gemm_e2e --only 1000x1000x1000 --mapping $m --runs 1 || echo "FAIL memcheck $m 1000"
  done ) > $T/r2-gemm-e2e.log 2>&1
echo "gemm e2e: $(grep -c FAIL $T/r2-gemm-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r2-gemm-e2e.log | sort | uniq -c | tr '\n' ' ')"
grep -m5 FAIL $T/r2-gemm-e2e.log
timeout 240 $S/gm --out $T/r2-gemm-table.md --command "$C" > $T/r2-gemm-table.log 2>&1
echo "table rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r2-gemm-table.md | tr '\n' ' ')"
for seed in 20261201 20261125; do
  timeout 200 $S/gm --out $T/r2-gemm-sweep-$seed.md --sweep 40 --sweep-seed $seed --command "$C" > $T/r2-gemm-$seed.log 2>&1
  echo "sweep $seed rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r2-gemm-sweep-$seed.md | tr '\n' ' ')"
done
tar czf $OUT/r2.tgz -C $T .
