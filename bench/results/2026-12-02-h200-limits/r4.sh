#!/usr/bin/env bash
# Session 32, device call 4 (prepare4.sh's binaries in build-gpu/s32d: examples/gemm's 23 mappings + candidates2.sh's
# multicast(S, T) mappings 23-28, each block freeing its slots only to the S + T - 1 blocks of its row and column):
#   1. gemm_e2e: every shape through the pick and every mapping by index; memcheck on 23-28 at 129x257x65 and
#      505x2856x1048 (odd column-tile counts: ghost tiles along both cluster dimensions), racecheck / synccheck on
#      23, 24, 26 at 129x257x65;
#   2. gm: every mapping beside cuBLAS on sweep seeds 20261125 and 20261202 (as in round 2).
set -u
S=build-gpu/s32d
H=bench/results/2026-12-02-h200-limits
C="bash $H/r4.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $T/r4-smi.txt 2>&1
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
  done ) > $T/r4-gemm-e2e.log 2>&1
echo "gemm e2e: $(grep -c FAIL $T/r4-gemm-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r4-gemm-e2e.log | sort | uniq -c | tr '\n' ' ')"
grep -m5 FAIL $T/r4-gemm-e2e.log
for seed in 20261125 20261202; do
  timeout 150 $S/gm --out $T/r4-gemm-sweep-$seed.md --sweep 40 --sweep-seed $seed --command "$C" > $T/r4-gemm-$seed.log 2>&1
  echo "sweep $seed rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r4-gemm-sweep-$seed.md | tr '\n' ' ')"
done


tar czf $OUT/r2.tgz -C $T .
