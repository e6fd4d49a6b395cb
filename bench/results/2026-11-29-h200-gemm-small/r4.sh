#!/usr/bin/env bash
# Round 4 on the GPU machine: gemm_deep.loom = examples/gemm as committed (15 mappings) plus m15
# 64 x 64 tiles with 128-deep K steps and 6 stages, m16 64 x 128 with 128-deep K steps and 4 stages,
# m17 64 x 64 with 12 stages of 64-deep K steps (192 KB in flight each, against 128-192 KB for
# the committed 64-row tiles): every mapping timed on its own over both sweeps. Binary
# build-gpu/s26/gm_deep: loom compile gemm_deep.loom -o build-gpu/s26/gen_deep/gemm; nvcc -std=c++17
# -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Ibuild-gpu/s26/gen_deep/gemm
# -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=18 bench/gemm_mappings.cu -lcuda -lcublas.
set -u
R=$(mktemp -d)
for seed in 20261127 20261125; do
  timeout 150 build-gpu/s26/gm_deep --out $R/r4-sweep-$seed.md --sweep 40 --sweep-seed $seed \
    --command "bash bench/results/2026-11-29-h200-gemm-small/r4.sh" > /dev/null 2>&1
  echo "seed $seed rc=$? $(grep 'pick / cuBLAS: geomean' $R/r4-sweep-$seed.md)"
done
tar czf $OUT/r4.tar.gz -C $R .
