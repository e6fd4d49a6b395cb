#!/usr/bin/env bash
# Session 48: build-gpu/s48.tar.xz for r1.sh: session 47's r2 libraries and binaries (its prepare2-base.sh with
# HEAD's loom, then prepare2.sh: build-gpu/s47b.tar.xz, carried as well) and bench/gemm_mappings.cu over examples/gemm
# with widths.sh's five candidates (32 mappings).
set -eu
S=build-gpu/s48
H=bench/results/2026-12-06-h100-s48
L=${LOOM:-build/loom}
rm -rf $S; mkdir -p $S/gen/gemm $S/bin
bash $H/widths.sh examples/gemm/gemm.loom $S/gen/gemm/gemm.loom
$L run --cpu $S/gen/gemm/gemm.loom --size M=129,N=257,K=65 | tail -1
$L compile $S/gen/gemm/gemm.loom -o $S/gen/gemm
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Itests/gpu -I$S/gen/gemm \
  -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=32 bench/gemm_mappings.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas \
  -o $S/bin/gmw > $S/gmw.log 2>&1 || { cat $S/gmw.log; exit 1; }
grep -c "spill" $S/gmw.log || true
tar cf - $S/bin | xz -T2 > build-gpu/s48.tar.xz
ls -la build-gpu/s48.tar.xz
