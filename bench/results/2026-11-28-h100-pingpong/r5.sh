#!/usr/bin/env bash
# Session 21 round 5: examples/gemm_bias_act (GELU) with its 12 committed mappings (m0-m11) + m12 = the
# ping-pong kernel (128 x 128 a warpgroup, alternate(2)) + m13 = m12 with multicast(2) (gba_all.loom),
# every mapping timed on its own against cuBLASLt's GELU+bias epilogue: listed shapes + 30-shape sweep.
set -u
cd "$(dirname "$0")/../../.."
B=build-gpu/s21; mkdir -p "$OUT"; t0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 540 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$B/libgba_all.so --only gemm_bias_act_gelu --by-mapping --sweep 30 --out $OUT/gba-all.md > $OUT/gba-all.log 2>&1; echo "gba bench rc=$? $(( $(date +%s) - t0 )) s"
grep -E "geomean" $OUT/gba-all.md
