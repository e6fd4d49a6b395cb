#!/usr/bin/env bash
# On the development machine: r1.sh's binaries into build-gpu/s32 (examples/gemm + candidates.sh's mappings 23-25):
# gm (bench/gemm_mappings.cu) and gemm_e2e (tests/gpu/gemm_correctness.cu).
set -eu
S=build-gpu/s32
L=${LOOM:-build/loom}
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
H=bench/results/2026-12-02-h200-limits
mkdir -p $S/gen
bash $H/candidates.sh examples/gemm/gemm.loom $S/gemm_c.loom
$L compile $S/gemm_c.loom -o $S/gen/gemm
$L compile examples/batched_gemm/batched_gemm.loom -o $S/gen/batched_gemm
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime"
$NV $F -Ibench -I$S/gen/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=26 bench/gemm_mappings.cu -lcuda -lcublas -o $S/gm > $S/gm.log 2>&1 && echo "ok gm" || echo "FAIL gm" &
$NV $F -Ibench -I$S/gen/gemm -I$S/gen/batched_gemm -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM tests/gpu/gemm_correctness.cu \
  $S/gen/gemm/gemm.cu $S/gen/batched_gemm/batched_gemm.cu -lcuda -o $S/gemm_e2e > $S/gemm_e2e.log 2>&1 && echo "ok gemm_e2e" || echo "FAIL gemm_e2e" &
wait
