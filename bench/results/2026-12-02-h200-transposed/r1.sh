#!/usr/bin/env bash
# Session 31, device call 1 (prepare1.sh's binaries in build-gpu/s31t): examples/gemm + nine transposed-mma candidates
# (15: 48 x 128, 16: 80 x 128, 17: 112 x 128, 18: 144 x 128, 19: 176 x 128, 20: 208 x 128, 21: 240 x 128 (two
# warpgroups of 64 columns), 22: 80 x 64 (one), 23: 144 x 256 (two of 128)).
#   1. gemm_e2e: every shape, every mapping by index; memcheck / racecheck / synccheck on 15, 16, 22, 23 forced at
#      1000x1000x1000 and 129x257x65;
#   2. gm_t: every mapping beside cuBLAS, sweeps of seeds 20261125 and 20261127 (40 shapes each).
set -u
S=build-gpu/s31t
H=bench/results/2026-12-02-h200-transposed
C="bash $H/r1.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $T/r1-smi.txt 2>&1
( timeout 150 $S/gemm_e2e
  for tool in memcheck racecheck synccheck; do
    for m in 15 16 22 23; do
      for shape in 1000x1000x1000 129x257x65; do
        echo "== compute-sanitizer --tool $tool, $shape on mapping $m"
        timeout 60 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gemm_e2e --only $shape --mapping $m --runs 1 || echo "FAIL $tool $m $shape"
      done
    done
  done ) > $T/r1-gemm-e2e.log 2>&1
echo "gemm e2e: $(grep -c FAIL $T/r1-gemm-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r1-gemm-e2e.log | sort | uniq -c | tr '\n' ' ')"
grep -m5 FAIL $T/r1-gemm-e2e.log
for seed in 20261125 20261127; do
  timeout 200 $S/gm_t --out $T/r1-gemm-sweep-$seed.md --sweep 40 --sweep-seed $seed --command "$C" > $T/r1-gemm-$seed.log 2>&1
  echo "sweep $seed rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r1-gemm-sweep-$seed.md | tr '\n' ' ')"
done
tar czf $OUT/r1.tgz -C $T .
