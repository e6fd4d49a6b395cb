#!/usr/bin/env bash
# Round 1 on the GPU machine: build-gpu/s25/splitk_latency (examples/gemm at c653f53, split kernels
# probed by probe_split.py), carried. Shapes: a split tile with almost no K (256x256x256), one with a
# long K (256x256x4096), and sweep shapes where loom loses to cuBLAS with a long K.
set -u
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $OUT/r1-smi.txt
timeout 400 build-gpu/s25/splitk_latency 256x256x256 256x256x4096 977x104x6336 487x1688x7536 272x96x2804 280x1472x1472 274x176x6136 > $OUT/r1-splitk-latency.md 2>&1 || echo "failed: $?"
cat $OUT/r1-splitk-latency.md
