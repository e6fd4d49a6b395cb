#!/usr/bin/env bash
# Round 2 on the GPU machine. Binaries built on the development machine into build-gpu/s26 from
# `loom compile` of examples/gemm and examples/batched_gemm with the 64 x 64 candidate (mapping 14):
#   gm_base: bench/gemm_mappings.cu against gen/gemm (nvcc -std=c++17 -O3 -lineinfo
#            -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=15);
#   gm_nreg, gm_init: the same against variant.py's edits of that gemm.cu (nreg; nreg,init);
#   bm_base: the same for gen/batched_gemm (-DLOOM_HAVE_BATCHED_GEMM -DLOOM_MAPPINGS=14).
# The variants alternate with the base, two rounds on seed 20261127 and one on 20261125; then the
# batched sweep and the fixed table with the base.
set -u
B=build-gpu/s26
C="bash bench/results/2026-11-29-h200-gemm-small/r2.sh"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/r2-smi.txt
for round in 1 2; do
  for v in base nreg init; do
    timeout 100 $B/gm_$v --out $OUT/r2-$v-27-$round.md --sweep 40 --sweep-seed 20261127 --command "$C" > /dev/null 2>&1
    echo "$v seed 27 round $round rc=$? $(grep 'pick / cuBLAS' $OUT/r2-$v-27-$round.md)"
  done
done
for v in base nreg init; do
  timeout 100 $B/gm_$v --out $OUT/r2-$v-25-1.md --sweep 40 --sweep-seed 20261125 --command "$C" > /dev/null 2>&1
  echo "$v seed 25 rc=$? $(grep 'pick / cuBLAS' $OUT/r2-$v-25-1.md)"
done
timeout 100 $B/bm_base --out $OUT/r2-batched-sweep.md --sweep 40 --sweep-seed 20261125 --command "$C" > /dev/null 2>&1
echo "batched sweep rc=$?"; tail -3 $OUT/r2-batched-sweep.md
timeout 60 $B/gm_base --out $OUT/r2-table.md --command "$C" > /dev/null 2>&1
echo "table rc=$?"; tail -3 $OUT/r2-table.md
