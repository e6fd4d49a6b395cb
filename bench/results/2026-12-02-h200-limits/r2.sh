#!/usr/bin/env bash
# Session 32, device call 2 (prepare2.sh's binaries in build-gpu/s32b: examples/gemm's 23 mappings + candidates2.sh's
# multicast(S, T) mappings 23-28):
#   1. gemm_e2e: every shape through the pick and every mapping by index; memcheck on 23-28 at 129x257x65 and
#      505x2856x1048 (odd column-tile counts: ghost tiles along both cluster dimensions), racecheck / synccheck on
#      23, 24, 26 at 129x257x65;
#   2. gm: every mapping beside cuBLAS on sweep seeds 20261125 and 20261202 (not used before) and the fixed table.
set -u
S=build-gpu/s32b
H=bench/results/2026-12-02-h200-limits
C="bash $H/r2.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $T/r2-smi.txt 2>&1
( timeout 200 $S/gemm_e2e
  for m in 23 24 25 26 27 28; do
    for sh in 129x257x65 505x2856x1048; do
      echo "== compute-sanitizer --tool memcheck, $sh on mapping $m"
      timeout 60 $SAN --tool memcheck --error-exitcode 99 --print-limit 20 $S/gemm_e2e --only $sh --mapping $m --runs 1 || echo "FAIL memcheck $m $sh"
    done
  done
  for tool in racecheck synccheck; do
    for m in 23 24 26; do
      echo "== compute-sanitizer --tool $tool, 129x257x65 on mapping $m"
      timeout 90 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gemm_e2e --only 129x257x65 --mapping $m --runs 1 || echo "FAIL $tool $m"
    done
  done ) > $T/r2-gemm-e2e.log 2>&1
echo "gemm e2e: $(grep -c FAIL $T/r2-gemm-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r2-gemm-e2e.log | sort | uniq -c | tr '\n' ' ')"
grep -m5 FAIL $T/r2-gemm-e2e.log
for seed in 20261125 20261202; do
  timeout 150 $S/gm --out $T/r2-gemm-sweep-$seed.md --sweep 40 --sweep-seed $seed --command "$C" > $T/r2-gemm-$seed.log 2>&1
  echo "sweep $seed rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r2-gemm-sweep-$seed.md | tr '\n' ' ')"
done
timeout 200 $S/gm --out $T/r2-gemm-table.md --command "$C" > $T/r2-gemm-table.log 2>&1
echo "table rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r2-gemm-table.md | tr '\n' ' ')"
tar czf $OUT/r2.tgz -C $T .
