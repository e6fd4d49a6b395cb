#!/usr/bin/env bash
# Session 18: re-check after factoring the 16-bit unpack out of ldg_pair / ldg_col_pairs / ldg_frag_pairs.
set -u
cd "$(dirname "$0")/../.."
G=build-gpu/s18/gen; W=/tmp/s18/w6; mkdir -p $W
NVCC=/usr/local/cuda/bin/nvcc; F=(-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu)
$NVCC "${F[@]}" -DLOOM_ACT=2 -I$G/gemm_bias_act_gelu tests/gpu/gemm_bias_act_correctness.cu $G/gemm_bias_act_gelu/gemm_bias_act.cu -lcuda -o $W/gelu &
$NVCC "${F[@]}" -DLOOM_ACT=0 -I$G/gemm_bias_act_identity tests/gpu/gemm_bias_act_correctness.cu $G/gemm_bias_act_identity/gemm_bias_act.cu -lcuda -o $W/ident &
$NVCC "${F[@]}" -I$G/gemm_residual_global tests/gpu/gemm_residual_correctness.cu $G/gemm_residual_global/gemm_residual.cu -lcuda -o $W/resg &
wait
for b in gelu ident resg; do $W/$b > $W/$b.log 2>&1; echo "$b rc=$? $(grep -c '| ok' $W/$b.log) ok, $(grep -c 'FAIL' $W/$b.log) FAIL"; done
compute-sanitizer --tool memcheck --error-exitcode 99 $W/gelu --only 129x257x65 2>&1 | grep -E "ERROR SUMMARY|PASS"
compute-sanitizer --tool memcheck --error-exitcode 99 $W/resg --only 129x257x65 2>&1 | grep -E "ERROR SUMMARY|PASS"
