#!/usr/bin/env bash
# Session 27, device call 3: gba_c40 (examples/gemm_bias_act + the two 192 x 192 regs(24, 160)
# candidates, GELU) with every mapping timed by index over the listed shapes and the 30-shape sweep
# (bench/fused_bench.py --by-mapping): would a perfect pick gain from the new tiles?
set -u
S=build-gpu/s27
T=$(mktemp -d)
timeout 540 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$S/lib/libgba_c40.so --only gemm_bias_act_gelu --sweep 30 \
  --by-mapping --out $T/r3-gba_c40-by-mapping.md --command "bash bench/results/2026-11-29-h200-regs/r3.sh" > $T/r3.log 2>&1
echo "rc=$?"; tail -5 $T/r3.log
tar czf $OUT/r3.tar.gz -C $T .
