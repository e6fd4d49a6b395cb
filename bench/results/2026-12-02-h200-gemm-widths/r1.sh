#!/usr/bin/env bash
# Session 30, device call 8 (prepare1.sh's binaries in build-gpu/s30w): examples/gemm + five tile widths off the
# 64-column grid (15: 128 x 96, 16: 128 x 160, 17: 128 x 224 (B swizzle64), 18: 128 x 176, 19: 128 x 208 (swizzle32)).
#   1. gemm_e2e: every shape, every mapping by index; memcheck / racecheck / synccheck on 15-19 forced at
#      1000x1000x1000 and 129x257x65;
#   2. gm_w: every mapping beside cuBLAS, sweeps of seeds 20261125 and 20261127 (40 shapes each).
set -u
S=build-gpu/s30w
H=bench/results/2026-12-02-h200-gemm-widths
C="bash $H/r1.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $T/r1-smi.txt 2>&1
( timeout 150 $S/gemm_e2e
  for tool in memcheck racecheck synccheck; do
    for m in 15 16 17 18 19; do
      for shape in 1000x1000x1000 129x257x65; do
        echo "== compute-sanitizer --tool $tool, $shape on mapping $m"
        timeout 60 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gemm_e2e --only $shape --mapping $m --runs 1 || echo "FAIL $tool $m $shape"
      done
    done
  done ) > $T/r1-gemm-e2e.log 2>&1
echo "gemm e2e: $(grep -c FAIL $T/r1-gemm-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r1-gemm-e2e.log | sort | uniq -c | tr '\n' ' ')"
for seed in 20261125 20261127; do
  timeout 200 $S/gm_w --out $T/r1-gemm-sweep-$seed.md --sweep 40 --sweep-seed $seed --command "$C" > $T/r1-gemm-$seed.log 2>&1
  echo "sweep $seed rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r1-gemm-sweep-$seed.md | tr '\n' ' ')"
done
tar czf $OUT/r1.tgz -C $T .
