#!/usr/bin/env bash
# Session 49: build-gpu/s49c.tar.xz for r3.sh (this tree's loom):
#  - examples/gemm (28 mappings, the transposed 208 x 128 on 2 x 4 now its last) + tmc3.sh's four (32), as
#    bench/gemm_mappings.cu (gm3);
#  - gemm_bias_act (GELU) as committed (base) and with gba_tmc.sh's transposed variants and 208 x 128 tiles on
#    2 x 4 clusters (ext, 19 mappings), as libraries for bench/fused_bench.py; the ext correctness binary.
set -eu
S=build-gpu/s49c
H=bench/results/2026-12-06-h100-s49
L=${LOOM:-build/loom}
NV=/usr/local/cuda/bin/nvcc
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Itests/gpu"
rm -rf $S; mkdir -p $S/gen/gemm $S/gen/base $S/gen/ext $S/bin
bash $H/tmc3.sh examples/gemm/gemm.loom $S/gen/gemm/gemm.loom
$L run --cpu $S/gen/gemm/gemm.loom --size M=129,N=257,K=65 | tail -1
$L compile $S/gen/gemm/gemm.loom -o $S/gen/gemm
cp examples/gemm_bias_act/gemm_bias_act.loom $S/gen/base/
bash $H/gba_tmc.sh examples/gemm_bias_act/gemm_bias_act.loom $S/gen/ext/gemm_bias_act.loom
$L run --cpu $S/gen/ext/gemm_bias_act.loom --size M=150,N=200,K=70 | tail -1
for v in base ext; do $L compile $S/gen/$v/gemm_bias_act.loom -o $S/gen/$v; done
. bench/results/2026-12-05-h100-s46/so.sh
mkdir -p $S/base $S/ext
so $S/base gemm_bias_act_gelu $S/gen/base &
so $S/ext gemm_bias_act_gelu $S/gen/ext &
$NV $F -DLOOM_ACT=2 -I$S/gen/ext tests/gpu/gemm_bias_act_correctness.cu $S/gen/ext/gemm_bias_act.cu \
  -L/usr/local/cuda/lib64/stubs -lcuda -o $S/bin/gba_ext &
$NV $F -I$S/gen/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=32 bench/gemm_mappings.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas \
  -o $S/bin/gm3 > $S/gm3.log 2>&1
wait
grep -c spill $S/gm3.log $S/*/lib/*.log || true
tar cf - $S/base/lib/*.so $S/ext/lib/*.so $S/bin | xz -T2 > build-gpu/s49c.tar.xz
ls -la build-gpu/s49c.tar.xz
