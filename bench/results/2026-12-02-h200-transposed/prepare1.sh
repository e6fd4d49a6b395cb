#!/usr/bin/env bash
# On the development machine: r1.sh's binaries into build-gpu/s31t: examples/gemm with candidates.sh's nine
# transposed candidates (mappings 15-23): gm_t (bench/gemm_mappings.cu, every mapping beside cuBLAS)
# and gemm_e2e (tests/gpu/gemm_correctness.cu: every mapping by index).
set -eu
S=build-gpu/s31t
L=${LOOM:-build/loom}
H=bench/results/2026-12-02-h200-transposed
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p $S/src $S/gen
bash $H/candidates.sh examples/gemm/gemm.loom $S/src/gemm.loom
$L compile $S/src/gemm.loom -o $S/gen/gemm
$L compile examples/batched_gemm/batched_gemm.loom -o $S/gen/batched_gemm
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime"
$NV $F -Ibench -I$S/gen/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=24 bench/gemm_mappings.cu -lcuda -lcublas -o $S/gm_t > $S/gm_t.log 2>&1 && echo "ok gm_t" || echo "FAIL gm_t" &
$NV $F -Ibench -I$S/gen/gemm -I$S/gen/batched_gemm -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM tests/gpu/gemm_correctness.cu \
  $S/gen/gemm/gemm.cu $S/gen/batched_gemm/batched_gemm.cu -lcuda -o $S/gemm_e2e > $S/gemm_e2e.log 2>&1 && echo "ok gemm_e2e" || echo "FAIL gemm_e2e" &
wait
