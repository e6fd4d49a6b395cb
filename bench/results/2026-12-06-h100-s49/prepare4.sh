#!/usr/bin/env bash
# Session 49: build-gpu/s49d.tar.xz for r4.sh (this tree's loom): add_gemm as committed (base) and with
# add_gemm_tmc.sh's transposed variants and 208 x 128 tiles on 2 x 4 clusters (ext, 14 mappings), as libraries for
# bench/fused_bench.py; the ext correctness binary (tests/gpu/add_gemm_correctness.cu).
set -eu
S=build-gpu/s49d
H=bench/results/2026-12-06-h100-s49
L=${LOOM:-build/loom}
NV=/usr/local/cuda/bin/nvcc
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Itests/gpu"
rm -rf $S; mkdir -p $S/gen/base $S/gen/ext $S/bin
cp examples/add_gemm/add_gemm.loom $S/gen/base/
bash $H/add_gemm_tmc.sh examples/add_gemm/add_gemm.loom $S/gen/ext/add_gemm.loom
$L run --cpu $S/gen/ext/add_gemm.loom --size M=129,N=257,K=65,L=70 | tail -1
for v in base ext; do $L compile $S/gen/$v/add_gemm.loom -o $S/gen/$v; done
. bench/results/2026-12-05-h100-s46/so.sh
mkdir -p $S/base $S/ext
so $S/base add_gemm $S/gen/base &
so $S/ext add_gemm $S/gen/ext &
$NV $F -I$S/gen/ext tests/gpu/add_gemm_correctness.cu $S/gen/ext/add_gemm.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas \
  -o $S/bin/add_gemm_ext
wait
tar cf - $S/base/lib/*.so $S/ext/lib/*.so $S/bin | xz -T2 > build-gpu/s49d.tar.xz
ls -la build-gpu/s49d.tar.xz
