#!/usr/bin/env bash
# Session 28, device call 4: deeper rings for the multicast tiles (candidates4.sh; build-gpu/s28c/gm_deep, examples/gemm
# + m15-m18), every mapping beside cuBLAS (bench/gemm_mappings.cu, outputs checked) on rows-off-sector shapes of the
# fused sweep and a few aligned ones.
set -u
S=build-gpu/s28c
T=$(mktemp -d)
sh=""
for s in 5264x7640x7224 6192x5624x4888 5728x4184x6520 7824x7424x6296 7328x5488x7248 2832x3960x4848 6736x5016x5456 \
         5368x3960x7152 5312x2584x7744 4096x4096x4096 8192x8192x8192 4096x14336x4096 2048x2048x2048 8192x8192x1024; do sh="$sh --shape $s"; done
timeout 300 $S/gm_deep --out $T/r4-deep.md $sh --command "bash bench/results/2026-12-02-h200-pingpong/r4.sh" > $T/r4.log 2>&1
echo "rc=$? $(grep -E '^- (pick|best)' $T/r4-deep.md | tr '\n' ' ')"
cp $T/r4* $OUT/
