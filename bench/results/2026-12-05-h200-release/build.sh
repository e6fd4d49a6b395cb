#!/usr/bin/env bash
# nvcc part of prepare.sh: build-gpu/s40/{a,b,o}/*.cu -> gm_a, gm_b, gm_o, e2e_a, e2e_b (run by r1.sh on the device
# machine: the five binaries, 50 MB, do not travel with the working tree).
set -eu
S=build-gpu/s40
H=bench/results/2026-12-05-h200-release
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -I$H"
for v in a b o; do
  $NV $F -Ibench -I$S/$v -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=29 bench/gemm_mappings.cu -lcuda -lcublas -o $S/gm_$v > $S/gm_$v.log 2>&1 && echo "ok gm_$v" || echo "FAIL gm_$v" &
done
for v in a b; do
  $NV $F -Ibench -I$S/$v -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM tests/gpu/gemm_correctness.cu \
    $S/$v/gemm.cu $S/$v/batched_gemm.cu -lcuda -o $S/e2e_$v > $S/e2e_$v.log 2>&1 && echo "ok e2e_$v" || echo "FAIL e2e_$v" &
done
wait
