#!/usr/bin/env bash
# Session 50: build-gpu/s50h.tar.xz for r9.sh: bench/gemm_mappings.cu over examples/gemm (28 mappings) + gemm_alt.loom.part's
# two two-team mappings (alternate(2), one warpgroup a tile: 128 x 128 and 128 x 192; 30), by this tree's loom.
set -eu
S=build-gpu/s50h
H=bench/results/2026-12-06-h100-s50
L=${LOOM:-build/loom}
rm -rf $S; mkdir -p $S/gen/gemm $S/bin
cat examples/gemm/gemm.loom $H/gemm_alt.loom.part > $S/gen/gemm/gemm.loom
$L run --cpu $S/gen/gemm/gemm.loom --size M=129,N=257,K=65 | tail -1
$L compile $S/gen/gemm/gemm.loom -o $S/gen/gemm
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Itests/gpu -I$S/gen/gemm \
  -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=30 bench/gemm_mappings.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas \
  -o $S/bin/gm30 -Xptxas -v > $S/gm30.log 2>&1 || { cat $S/gm30.log; exit 1; }
grep -h "spill" $S/gm30.log | sort | uniq -c
tar cf - $S/bin | xz -T2 > build-gpu/s50h.tar.xz
ls -la build-gpu/s50h.tar.xz
