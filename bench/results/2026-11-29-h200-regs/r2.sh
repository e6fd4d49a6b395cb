#!/usr/bin/env bash
# Session 27, device call 2: (1) tests/gpu/e2e/tx.sh with its binaries built beforehand (prepare2.sh),
# now with the sanitizers on every mapping of the generated gemm, mapping 0 (128 x 256) included;
# (2) a second attention round, FA2 and FA3 at 24 / 240 listed first this time (r1 listed the rule's
# 40 / 232 first), D = 128 and 64.
set -u
S=build-gpu/s27
R=bench/results/2026-11-29-h200-regs
T=$(mktemp -d)
LOOM_GEN_DIR=$S/gen timeout 420 bash tests/gpu/e2e/tx.sh $S/txw > $T/r2-tx.log 2>&1
echo "tx.sh rc=$?"; grep -E "^== compute-sanitizer|ERROR SUMMARY|RACECHECK SUMMARY" $T/r2-tx.log | tail -8
timeout 300 python3 bench/attention_bench.py --lib fa2_r24=$S/lib/libfa2_24.so --lib fa2=$S/lib/libfa2_40.so \
  --lib fa3_r24=$S/lib/libfa3_24.so --lib fa3=$S/lib/libfa3_40.so --no-causal --out $T/r2-attention.md \
  --command "bash $R/r2.sh" > $T/r2-attention.log 2>&1
echo "attention rc=$?"; grep "geomean" $T/r2-attention.md
tar czf $OUT/r2.tar.gz -C $T .
