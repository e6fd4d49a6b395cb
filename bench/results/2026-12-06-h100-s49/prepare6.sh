#!/usr/bin/env bash
# Session 49: build-gpu/s49e.tar.xz for r6.sh: bench/gemm_mappings.cu over the committed examples/gemm (28 mappings,
# the transposed 208 x 128 tiles on 2 x 4 clusters its last), by this tree's loom.
set -eu
S=build-gpu/s49e
L=${LOOM:-build/loom}
rm -rf $S; mkdir -p $S/gen/gemm $S/bin
cp examples/gemm/gemm.loom $S/gen/gemm/
$L run --cpu $S/gen/gemm/gemm.loom --size M=129,N=257,K=65 | tail -1
$L compile $S/gen/gemm/gemm.loom -o $S/gen/gemm
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Itests/gpu -I$S/gen/gemm \
  -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=28 bench/gemm_mappings.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas \
  -o $S/bin/gm28 > $S/gm28.log 2>&1 || { cat $S/gm28.log; exit 1; }
tar cf - $S/bin | xz -T2 > build-gpu/s49e.tar.xz
ls -la build-gpu/s49e.tar.xz
