#!/usr/bin/env bash
# Session 48: build-gpu/s48c.tar.xz for r3.sh: this tree's loom (the dispatcher's L2 bound,
# CostModel::l2_read_bytes_per_cycle) on examples/gemm (bench/gemm_mappings.cu, its 27 mappings) and on
# examples/gemm_bias_act with GELU as a shared library (bench/results/2026-12-05-h100-s46/so.sh). The old
# dispatcher's gemm_bias_act is session 47's build-gpu/s47b/ext library (the same 18 mappings).
set -eu
S=build-gpu/s48c
L=${LOOM:-build/loom}
rm -rf $S; mkdir -p $S/gen/gemm $S/bin
$L compile examples/gemm/gemm.loom -o $S/gen/gemm
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Itests/gpu -I$S/gen/gemm \
  -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=27 bench/gemm_mappings.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas -o $S/bin/gm &
LOOM=$L bash tests/gpu/e2e/gemm_bias_act.sh --gen gelu $S/gen > /dev/null
. bench/results/2026-12-05-h100-s46/so.sh
so $S gemm_bias_act_gelu $S/gen/gemm_bias_act_gelu
wait
grep -c "aggregate read rate" $S/gen/gemm/gemm.cu $S/gen/gemm_bias_act_gelu/gemm_bias_act.cu
tar cf - $S/bin $S/lib/*.so | xz -T2 > build-gpu/s48c.tar.xz
ls -la build-gpu/s48c.tar.xz
