#!/usr/bin/env bash
# Session 30, device call 5: the kernels cuBLAS / cuBLASLt choose for the shapes where loom trails (peer_kernels.py).
set -u
H=bench/results/2026-12-02-h200-peer-kernels
timeout 240 python3 $H/peer_kernels.py > $OUT/r1-kernels.md 2> $OUT/r1-kernels.log
echo "rc=$? $(wc -l < $OUT/r1-kernels.md) lines"
