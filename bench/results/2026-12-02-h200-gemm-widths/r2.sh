#!/usr/bin/env bash
# Session 30, device call 9 (prepare2.sh's binary in build-gpu/s30x): examples/gemm + candidates2.sh's narrow-swizzle
# tiles of 64-multiple widths (15: 128 x 192 swizzle64, 16: 128 x 192 swizzle32, 17: 128 x 256 swizzle64), all
# staged like the 128-byte ones: every mapping beside cuBLAS (outputs checked against cuBLAS), sweep seed 20261125
# plus four listed shapes.
set -u
S=build-gpu/s30x
H=bench/results/2026-12-02-h200-gemm-widths
C="bash $H/r2.sh"
timeout 300 $S/gm_x --out $OUT/r2-gemm-sweep.md --sweep 40 --sweep-seed 20261125 --shape 4096x4096x4096 --shape 8192x8192x8192 \
  --shape 4096x14336x4096 --shape 8192x8192x1024 --command "$C" > $OUT/r2-gemm.log 2>&1
echo "rc=$? $(grep -E '^- (pick|best) / cuBLAS' $OUT/r2-gemm-sweep.md | tr '\n' ' ')"
