#!/usr/bin/env bash
# Session 50, device call 10 (carry build-gpu/s50i.tar.xz: prepare8.sh with S=build-gpu/s50i, after the C ABI gained
# loom_<entry>_estimates): the committed gemm_bias_act by mapping on three shapes, with the estimates table that
# bench/fused_bench.py --by-mapping now prints beside the times.
set -u
mkdir -p $OUT
tar xJf build-gpu/s50i.tar.xz
timeout 150 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=build-gpu/s50i/lib20/lib/libgemm_bias_act_gelu.so --by-mapping \
  --shapes 8192x8192x1024,6456x2912x5496,2232x3288x3296 --out $OUT/gba-estimates.md \
  --command "bash bench/results/2026-12-06-h100-s50/r10.sh" > $OUT/gba-estimates.log 2>&1
echo "rc=$?"; sed -n '/Estimates of the same calls/,$p' $OUT/gba-estimates.md | head -8
