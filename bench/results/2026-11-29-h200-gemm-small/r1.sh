#!/usr/bin/env bash
# Round 1 on the GPU machine: gemm_small.loom (examples/gemm at 01f27f4 plus m14 64 x 64 p8,
# m15 64 x 32 p8 (B swizzle64), m16 / m17 64 x 128 splitk(2) / splitk(4) p6, m18 64 x 256 splitk(2)
# p4): every mapping timed on its own over the GEMM sweep (seeds 20261125, 20261127) and the fixed
# table. Binary build-gpu/s26/gm_small, built on the development machine as bench/gemm_mappings.sh
# does: loom compile gemm_small.loom -o build-gpu/s26/gen_small/gemm; nvcc -std=c++17 -O3 -lineinfo
# -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Ibuild-gpu/s26/gen_small/gemm
# -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=19 bench/gemm_mappings.cu -lcuda -lcublas.
set -u
B=build-gpu/s26/gm_small
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/r1-smi.txt
for seed in 20261125 20261127; do
  timeout 250 $B --out $OUT/r1-sweep-$seed.md --sweep 40 --sweep-seed $seed \
    --command "bash bench/results/2026-11-29-h200-gemm-small/r1.sh" > $OUT/r1-sweep-$seed.log 2>&1
  echo "seed $seed rc=$?"
  tail -4 $OUT/r1-sweep-$seed.md
done
timeout 60 $B --out $OUT/r1-table.md --command "bash bench/results/2026-11-29-h200-gemm-small/r1.sh" > $OUT/r1-table.log 2>&1
echo "table rc=$?"
tail -4 $OUT/r1-table.md
