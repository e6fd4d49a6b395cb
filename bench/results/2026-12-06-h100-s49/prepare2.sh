#!/usr/bin/env bash
# Session 49: build-gpu/s49b.tar.xz for r2.sh: examples/gemm + tmc.sh's five candidates compiled by this tree's loom
# (A's 208- and 104-row boxes now shared by overlapping bands on 2 x 4 clusters: multicast.cpp), as
# bench/gemm_mappings.cu (gmt) and as tests/gpu/gemm_correctness.cu over libloom_gemm.so (gc).
set -eu
S=build-gpu/s49b
H=bench/results/2026-12-06-h100-s49
L=${LOOM:-build/loom}
NV=/usr/local/cuda/bin/nvcc
rm -rf $S; mkdir -p $S/gen/gemm $S/bin $S/lib
bash $H/tmc.sh examples/gemm/gemm.loom $S/gen/gemm/gemm.loom
$L run --cpu $S/gen/gemm/gemm.loom --size M=129,N=257,K=65 | tail -1
$L compile $S/gen/gemm/gemm.loom -o $S/gen/gemm
F="-std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fPIC -Iruntime"
$NV $F -lineinfo -Ibench -Itests/gpu -I$S/gen/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=32 bench/gemm_mappings.cu \
  -L/usr/local/cuda/lib64/stubs -lcuda -lcublas -o $S/bin/gmt > $S/gmt.log 2>&1 || { cat $S/gmt.log; exit 1; } &
$NV $F -lineinfo -c $S/gen/gemm/gemm.cu -o $S/gemm.o && $NV -shared -o $S/lib/libloom_gemm.so $S/gemm.o -cudart shared \
  -L/usr/local/cuda/lib64/stubs -lcuda
$NV $F -Ibench -I$S/gen/gemm -DLOOM_HAVE_GEMM tests/gpu/gemm_correctness.cu -o $S/bin/gc -L$S/lib -lloom_gemm \
  -Xlinker -rpath,'$ORIGIN/../lib' -cudart shared -L/usr/local/cuda/lib64/stubs -lcuda -lcublas
wait
grep -c "spill" $S/gmt.log || true
tar cf - $S/bin $S/lib | xz -T2 > build-gpu/s49b.tar.xz
ls -la build-gpu/s49b.tar.xz
