#!/usr/bin/env bash
# Session 50, device call 8 (carry build-gpu/s49c.tar.xz and build-gpu/s50g.tar.xz): gemm_bias_act (GELU) through its
# launcher, the 19 mappings before this session (s49c ext) and the committed 20 (s50g), each against cuBLASLt's bias +
# GELU in its own process, alternating, on the 5 listed + 30 sweep shapes of seeds 20261125 and 20261206.
set -u
mkdir -p $OUT
tar xJf build-gpu/s49c.tar.xz; tar xJf build-gpu/s50g.tar.xz
for seed in 20261206 20261125; do
  for v in 19 20; do
    lib=build-gpu/s49c/ext/lib/libgemm_bias_act_gelu.so; [ $v = 20 ] && lib=build-gpu/s50g/lib20/lib/libgemm_bias_act_gelu.so
    timeout 140 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$lib --sweep 30 --seed $seed --out $OUT/gba$v-$seed.md \
      --command "bash bench/results/2026-12-06-h100-s50/r8.sh" > $OUT/gba$v-$seed.log 2>&1
    echo "gba $v mappings seed $seed rc=$?"; grep -iE "vs cuBLASLt" $OUT/gba$v-$seed.md | head -2
  done
done
