#!/usr/bin/env bash
# Session 51: build-gpu/s51.tar.xz for r1.sh: bench/gemm_mappings.cu over the committed examples/gemm (28 mappings)
# with -lineinfo (ncu's source view), by this tree's loom.
set -eu
S=build-gpu/s51
L=${LOOM:-build/loom}
rm -rf $S; mkdir -p $S/gen/gemm $S/bin
cp examples/gemm/gemm.loom $S/gen/gemm/
$L compile $S/gen/gemm/gemm.loom -o $S/gen/gemm
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Itests/gpu -I$S/gen/gemm \
  -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=28 bench/gemm_mappings.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas \
  -o $S/bin/gm28 > $S/gm28.log 2>&1 || { cat $S/gm28.log; exit 1; }
tar cf - $S/bin $S/gen | xz -T2 > build-gpu/s51.tar.xz
ls -la build-gpu/s51.tar.xz
