#!/usr/bin/env bash
# Session 43, device call 4 (H100; carry build-gpu/s43): examples/gemm's 23 mappings (this session's loom: the
# generated gemm.cu is byte-identical to session 40's) in bench/gemm_mappings.cu, built on the development machine:
#   nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Ibuild-gpu/s43/gemm \
#     -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=23 bench/gemm_mappings.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas -o build-gpu/s43/gm
# the 40-shape sweep of seed 20261125 (issue 11's acceptance device is the H100; the committed sweeps were H200).
mkdir -p $OUT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $OUT/r4-smi.txt 2>&1
timeout 150 build-gpu/s43/gm --out $OUT/r4-gm-sweep-20261125.md --sweep 40 --sweep-seed 20261125 \
  --command "bash bench/results/2026-12-05-h100-dbuf/r4.sh" > $OUT/r4-gm-sweep.log 2>&1
echo "gm sweep rc=$?"; grep -E '^- ' $OUT/r4-gm-sweep-20261125.md
