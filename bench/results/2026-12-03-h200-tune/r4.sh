#!/usr/bin/env bash
# Session 33, device call 4 (prepare2.sh's binaries in build-gpu/s33b): r3's GEMM sweeps, which ran out of their 100 s with
# 20 ms of settling per timed batch, again without settling (the second round still reversed): seeds 20261125 and 20261203;
# first tests/gpu/tune_test.cu (build-gpu/s33b/tune_test: nvcc -gencode=arch=compute_90a,code=sm_90a -std=c++17 -O2
# -Iruntime -Itests/gpu tests/gpu/tune_test.cu).
set -u
S=build-gpu/s33b
H=bench/results/2026-12-03-h200-tune
C="bash $H/r4.sh"
T=$(mktemp -d)
timeout 60 $S/tune_test > $T/r4-tune-test.log 2>&1; echo "tune_test rc=$? $(tail -2 $T/r4-tune-test.log | tr '\n' ' ')"
cp $T/r4-tune-test.log $OUT/
for seed in 20261125 20261203; do
  timeout 150 $S/gm --out $T/r4-gemm-sweep-$seed.md --sweep 40 --sweep-seed $seed --command "$C" > $T/r4-gemm-$seed.log 2>&1
  echo "sweep $seed rc=$? $(grep -E '^- (pick|tuned|best) / cuBLAS' $T/r4-gemm-sweep-$seed.md | tr '\n' ' ')"
  tar czf $OUT/r4-$seed.tgz -C $T r4-gemm-sweep-$seed.md r4-gemm-$seed.log
done
