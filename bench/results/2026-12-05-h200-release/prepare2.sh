#!/usr/bin/env bash
# Session 40, on the development machine, for r2.sh: with this session's loom (the committed release: one arrival per
# compute warpgroup where wgmmas alone read the slots, per warp otherwise; to the blocks of the row and column under
# multicast(S, T) with both operands shared),
#   build-gpu/s40/gen/: what tests/gpu/e2e/{gemm,gemm_multicast,add_gemm,relu_gemm,gemm_residual,gemm_bias_act}.sh read
#                      (gemm_bias_act with GELU only; gemm_residual_global as bench/run.sh --prepare makes it)
#   build-gpu/s40/n/:  examples/gemm + candidates3.sh (mappings 23-28), for gm_n (built on the device by r2.sh)
set -eu
L=${LOOM:-build/loom}
H=bench/results/2026-12-05-h200-release
G=build-gpu/s40/gen
N=build-gpu/s40/n
rm -rf $G $N
mkdir -p $G/gemm_multicast $G/gemm_residual_global $N
for e in gemm batched_gemm add_gemm relu_gemm gemm_residual; do $L compile examples/$e/$e.loom -o $G/$e; done
sed -f tests/gpu/e2e/multicast.sed examples/gemm/gemm.loom > $G/gemm_multicast/gemm_multicast.loom
$L compile $G/gemm_multicast/gemm_multicast.loom -o $G/gemm_multicast
sed -f tests/gpu/e2e/residual_global.sed examples/gemm_residual/gemm_residual.loom > $G/gemm_residual_global/gemm_residual.loom
$L compile $G/gemm_residual_global/gemm_residual.loom -o $G/gemm_residual_global
LOOM=$L bash tests/gpu/e2e/gemm_bias_act.sh --gen gelu $G
bash $H/candidates3.sh examples/gemm/gemm.loom $N/gemm_c.loom
$L compile $N/gemm_c.loom -o $N
grep -c "arrive_cluster_wg" $G/*/*.cu $N/gemm.cu | tr '\n' ' '; echo
