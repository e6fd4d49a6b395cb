#!/usr/bin/env bash
# Session 50, device call 2 (prepared in session 49 as r8.sh) (carry build-gpu/s49c.tar.xz from prepare3.sh): the committed gemm_bias_act (GELU, 19
# mappings; prepare3.sh's `ext` library is its code) mapping by mapping on the 5 listed + 30 sweep shapes (seed
# 20261125), beside cuBLASLt's bias + GELU, in one process: per-mapping data for the cost model's multi-wave terms.
set -u
mkdir -p $OUT
tar xJf build-gpu/s49c.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s)
timeout 400 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=build-gpu/s49c/ext/lib/libgemm_bias_act_gelu.so --by-mapping \
  --sweep 30 --out $OUT/gba-bymap.md --command "bash bench/results/2026-12-06-h100-s50/r2.sh" > $OUT/gba-bymap.log 2>&1
echo "gba bymap rc=$? $(( $(date +%s) - start )) s"; grep -iE "vs cuBLASLt" $OUT/gba-bymap.md | head -3
