#!/usr/bin/env bash
# Session 28, device call 7 (prepare7.sh's kernels in build-gpu/s28f): examples/batched_gemm's multicast candidates
# 4 stages deep.
#   1. gemm_e2e: every shape, every mapping by index (batched: 3x113x280x3400); memcheck / racecheck / synccheck on
#      batched mappings 10 and 12 forced at 4x129x257x65 (the every-mapping pass forces them at 3x113x280x3400 too);
#   2. batched_gemm old and new, every mapping beside cuBLAS: the 40-shape sweep (seed 20261125), old and new in turn.
set -u
S=build-gpu/s28f
C="bash bench/results/2026-12-02-h200-pingpong/r7.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
( timeout 150 $S/gemm_e2e
  for tool in memcheck racecheck synccheck; do
    for m in 10 12; do
      for shape in 4x129x257x65; do
        echo "== compute-sanitizer --tool $tool, $shape on mapping $m"
        timeout 60 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gemm_e2e --only $shape --mapping $m --runs 1 || echo "FAIL $tool $m $shape"
      done
    done
  done ) > $T/r7-e2e.log 2>&1
echo "e2e: $(grep -c FAIL $T/r7-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r7-e2e.log | sort | uniq -c | tr '\n' ' ')"
for v in old new; do
  timeout 120 $S/gmb_$v --out $T/r7-batched-$v-sweep.md --sweep 40 --sweep-seed 20261125 --command "$C" >> $T/r7-batched.log 2>&1
  echo "batched $v sweep rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r7-batched-$v-sweep.md | tr '\n' ' ')"
done
cp $T/r7-e2e.log $T/r7-batched-old-sweep.md $T/r7-batched-new-sweep.md $T/r7-batched.log $OUT/
