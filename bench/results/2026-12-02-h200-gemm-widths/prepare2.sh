#!/usr/bin/env bash
# On the development machine: r2.sh's binaries into build-gpu/s30x: examples/gemm with candidates2.sh's three
# narrow-swizzle candidates (mappings 15-17): gm_x (bench/gemm_mappings.cu, every mapping beside cuBLAS)
set -eu
S=build-gpu/s30x
L=${LOOM:-build/loom}
H=bench/results/2026-12-02-h200-gemm-widths
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p $S/src $S/gen
bash $H/candidates2.sh examples/gemm/gemm.loom $S/src/gemm.loom
$L compile $S/src/gemm.loom -o $S/gen/gemm
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime"
$NV $F -Ibench -I$S/gen/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=18 bench/gemm_mappings.cu -lcuda -lcublas -o $S/gm_x > $S/gm_x.log 2>&1 && echo "ok gm_x" || echo "FAIL gm_x" &
wait
