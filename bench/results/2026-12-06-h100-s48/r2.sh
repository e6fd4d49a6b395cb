#!/usr/bin/env bash
# Session 48, device call 2 (carry build-gpu/s47b.tar.xz): r1 saw the extended gemm_bias_act (GELU; s47's cands.sh:
# 128 x 256 on clusters of 4 x 1 and 2 x 2, 128 x 192 on 2 x 4) 10% slower than the committed one at 8192^3 with a
# 13.5% spread on the committed side: which mapping each library picks on the multi-wave shapes and every mapping's
# time there (bymap.py: the extended library's every mapping, the committed one's pick, cuBLASLt's bias + GELU, in
# one process; outputs checked against fp32).
set -u
mkdir -p $OUT
[ -d build-gpu/s47b/ext/lib ] || tar xJf build-gpu/s47b.tar.xz
L=build-gpu/s47b
timeout 200 python3 bench/results/2026-12-04-h200-bymap/bymap.py --lib gelu=$L/ext/lib/libgemm_bias_act_gelu.so \
  --lib gelu-base=$L/base/lib/libgemm_bias_act_gelu.so --pick-only gelu-base \
  --shapes 8192x8192x8192,4096x14336x4096,4096x4096x4096,2232x3288x3296,5968x2448x6416,6456x2912x5496,7824x7424x6296 \
  --out $OUT/bymap.md --command "bash bench/results/2026-12-06-h100-s48/r2.sh" > $OUT/bymap.log 2>&1
echo "bymap rc=$?"; tail -30 $OUT/bymap.log | cut -c1-250
