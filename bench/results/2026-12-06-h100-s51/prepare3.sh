#!/usr/bin/env bash
# Session 51: build-gpu/s51c.tar.xz for r3.sh, this tree's loom (the ring chain's DMA wait dropped, and staged epilogues
# in parts through two buffers taken in turn):
#  - bench/gemm_mappings.cu over examples/gemm (28 mappings; the old one is s51.tar.xz's gm28, HEAD's code);
#  - tests/gpu/gemm_correctness.cu over gemm and batched_gemm (as tests/gpu/e2e/gemm.sh);
#  - gemm_bias_act (GELU) as a library for bench/fused_bench.py (the old one: s50g.tar.xz) and its correctness harness;
#  - add_gemm's and relu_gemm's correctness harnesses.
set -eu
S=build-gpu/s51c
L=${LOOM:-build/loom}
NV=/usr/local/cuda/bin/nvcc
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Itests/gpu"
rm -rf $S; mkdir -p $S/gen $S/bin $S/gba
for e in gemm batched_gemm gemm_bias_act add_gemm relu_gemm; do
  mkdir -p $S/gen/$e; cp examples/$e/$e.loom $S/gen/$e/; $L compile $S/gen/$e/$e.loom -o $S/gen/$e
done
. bench/results/2026-12-05-h100-s46/so.sh
so $S/gba gemm_bias_act_gelu $S/gen/gemm_bias_act &
$NV $F -I$S/gen/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=28 bench/gemm_mappings.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas -o $S/bin/gm28
wait
$NV $F -I$S/gen/gemm -I$S/gen/batched_gemm -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM tests/gpu/gemm_correctness.cu \
  $S/gen/gemm/gemm.cu $S/gen/batched_gemm/batched_gemm.cu -L/usr/local/cuda/lib64/stubs -lcuda -o $S/bin/gemm_e2e &
$NV $F -DLOOM_ACT=2 -I$S/gen/gemm_bias_act tests/gpu/gemm_bias_act_correctness.cu $S/gen/gemm_bias_act/gemm_bias_act.cu \
  -L/usr/local/cuda/lib64/stubs -lcuda -o $S/bin/gba_e2e
wait
$NV $F -I$S/gen/add_gemm tests/gpu/add_gemm_correctness.cu $S/gen/add_gemm/add_gemm.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas \
  -o $S/bin/add_gemm_e2e &
$NV $F -I$S/gen/relu_gemm tests/gpu/relu_gemm_correctness.cu $S/gen/relu_gemm/relu_gemm.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas \
  -o $S/bin/relu_gemm_e2e
wait
tar cf - $S/bin $S/gba/lib | xz -T2 > build-gpu/s51c.tar.xz
ls -la build-gpu/s51c.tar.xz
