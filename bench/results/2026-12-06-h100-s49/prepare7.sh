#!/usr/bin/env bash
# Session 49: build-gpu/s49f.tar.xz for r7.sh: examples/gemm + sw64.sh's four (32 mappings) as bench/gemm_mappings.cu
# (gms) and tests/gpu/gemm_correctness.cu over libloom_gemm.so (gcs), by this tree's loom.
set -eu
S=build-gpu/s49f
H=bench/results/2026-12-06-h100-s49
L=${LOOM:-build/loom}
NV=/usr/local/cuda/bin/nvcc
rm -rf $S; mkdir -p $S/gen/gemm $S/bin $S/lib
bash $H/sw64.sh examples/gemm/gemm.loom $S/gen/gemm/gemm.loom
$L run --cpu $S/gen/gemm/gemm.loom --size M=129,N=257,K=65 | tail -1
$L compile $S/gen/gemm/gemm.loom -o $S/gen/gemm
F="-std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fPIC -Iruntime"
$NV $F -lineinfo -Ibench -Itests/gpu -I$S/gen/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=32 bench/gemm_mappings.cu \
  -L/usr/local/cuda/lib64/stubs -lcuda -lcublas -o $S/bin/gms > $S/gms.log 2>&1 || { cat $S/gms.log; exit 1; }
$NV $F -lineinfo -c $S/gen/gemm/gemm.cu -o $S/gemm.o && $NV -shared -o $S/lib/libloom_gemm.so $S/gemm.o -cudart shared \
  -L/usr/local/cuda/lib64/stubs -lcuda
$NV $F -Ibench -I$S/gen/gemm -DLOOM_HAVE_GEMM tests/gpu/gemm_correctness.cu -o $S/bin/gcs -L$S/lib -lloom_gemm \
  -Xlinker -rpath,'$ORIGIN/../lib' -cudart shared -L/usr/local/cuda/lib64/stubs -lcuda -lcublas
grep -h "spill" $S/gms.log | grep -v " 0 bytes spill stores, 0 bytes spill loads" | head -3 || true
tar cf - $S/bin $S/lib | xz -T2 > build-gpu/s49f.tar.xz
ls -la build-gpu/s49f.tar.xz
