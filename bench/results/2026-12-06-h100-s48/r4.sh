#!/usr/bin/env bash
# Session 48, device call 4 (carry build-gpu/s47b.tar.xz): add_gemm with the three cluster shapes (now committed) on
# the multi-wave shapes where r1 measured it slower than the committed-before library: every mapping by index and the
# pick (bench/fused_bench.py --by-mapping), against torch's two GEMMs + add, in one process.
set -u
mkdir -p $OUT
[ -d build-gpu/s47b/ext/lib ] || tar xJf build-gpu/s47b.tar.xz
timeout 80 python3 bench/fused_bench.py --lib add_gemm=build-gpu/s47b/ext/lib/libadd_gemm.so --by-mapping \
  --shapes 8192x8192x8192,6456x2912x5496,7328x5488x7248 --out $OUT/add-gemm-bymap.md \
  --command "bash bench/results/2026-12-06-h100-s48/r4.sh" > $OUT/add-gemm-bymap.log 2>&1
echo "rc=$?"; grep -A12 -i "every mapping\|by mapping" $OUT/add-gemm-bymap.md | head -30
