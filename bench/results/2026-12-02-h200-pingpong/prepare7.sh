#!/usr/bin/env bash
# On the development machine: r7.sh's kernels into build-gpu/s28f: examples/batched_gemm with its 128 x 256
# and 192 x 192 multicast candidates 4 stages deep (new/, this commit) and 3 (old/: the golden file
# tests/golden/codegen/batched_gemm.cu at HEAD, the previous loom's output for the example);
# gmb_new / gmb_old (bench/gemm_mappings.cu, batched) and gemm_e2e (tests/gpu/e2e/gemm.sh's nvcc command, new/).
set -eu
S=build-gpu/s28f
L=${LOOM:-build/loom}
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p $S/new $S/old/batched_gemm
$L compile examples/gemm/gemm.loom -o $S/new/gemm
$L compile examples/batched_gemm/batched_gemm.loom -o $S/new/batched_gemm
git show HEAD:tests/golden/codegen/batched_gemm.cu > $S/old/batched_gemm/batched_gemm.cu
git show HEAD:tests/golden/codegen/batched_gemm.h > $S/old/batched_gemm/batched_gemm.h
n=$(grep -o "one per mapping ([0-9]*)" $S/new/batched_gemm/batched_gemm.cu | grep -o "[0-9]*")
gm() {  # gm NAME DIR
  $NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I$2 -DLOOM_HAVE_BATCHED_GEMM \
    -DLOOM_MAPPINGS=$n bench/gemm_mappings.cu -lcuda -lcublas -o $S/$1 > $S/$1.log 2>&1 && echo "ok $1" || echo "FAIL $1"
}
gm gmb_new $S/new/batched_gemm & gm gmb_old $S/old/batched_gemm & wait
$NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I$S/new/gemm -I$S/new/batched_gemm \
  -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM tests/gpu/gemm_correctness.cu $S/new/gemm/gemm.cu $S/new/batched_gemm/batched_gemm.cu \
  -lcuda -o $S/gemm_e2e > $S/gemm_e2e.log 2>&1 && echo "ok gemm_e2e" || echo "FAIL gemm_e2e"
