#!/usr/bin/env bash
# Session 31, device call 4 (prepare4.sh's binaries in build-gpu/s31k): examples/gemm + two transposed split-K candidates
# (23: 48 x 64 splitk(4), 24: 80 x 64 splitk(2)).
#   1. gemm_e2e: every shape through the pick, every mapping by index; memcheck / racecheck / synccheck on 23 and 24
#      at 129x257x65 and 274x176x6136;
#   2. gm: every mapping beside cuBLAS, sweeps of seeds 20261125 and 20261201.
set -u
S=build-gpu/s31k
H=bench/results/2026-12-02-h200-transposed
C="bash $H/r4.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $T/r4-smi.txt 2>&1
( timeout 150 $S/gemm_e2e
  for tool in memcheck racecheck synccheck; do
    for m in 23 24; do
      for shape in 129x257x65 274x176x6136; do
        echo "== compute-sanitizer --tool $tool, $shape on mapping $m"
        timeout 60 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gemm_e2e --only $shape --mapping $m --runs 1 || echo "FAIL $tool $m $shape"
      done
    done
  done ) > $T/r4-gemm-e2e.log 2>&1
echo "gemm e2e: $(grep -c FAIL $T/r4-gemm-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r4-gemm-e2e.log | sort | uniq -c | tr '\n' ' ')"
grep -m5 FAIL $T/r4-gemm-e2e.log
for seed in 20261125 20261201; do
  timeout 200 $S/gm --out $T/r4-gemm-sweep-$seed.md --sweep 40 --sweep-seed $seed --command "$C" > $T/r4-gemm-$seed.log 2>&1
  echo "sweep $seed rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r4-gemm-sweep-$seed.md | tr '\n' ' ')"
done
tar czf $OUT/r4.tgz -C $T .
