#!/usr/bin/env bash
# Session 18 round 2: epilogue global inputs loaded in program order (runtime ldg_pair via volatile asm).
set -u
cd "$(dirname "$0")/../.."
G=build-gpu/s18; L=/tmp/s18/logs; mkdir -p $L "$OUT"
SH="8192x8192x1024,4096x4096x4096,2256x7968x552,7168x7760x328,3464x4040x1240,1880x5120x3840,408x6896x6408,5448x6448x2800"
t0=$(date +%s)
OUT="$OUT/diag" LOOM_GEN_DIR=$G/gen LOOM_BUILD_DIR=/tmp/s18/fb timeout 300 bash bench/fused.sh --shapes $SH \
  --only gemm_bias_act_gelu --only gemm_bias_act_identity > $L/f1.log 2>&1
echo "diag rc=$? $(( $(date +%s) - t0 )) s"; grep -E "^- " "$OUT/diag/fused.md"
OUT="$OUT/sweep" LOOM_GEN_DIR=$G/gen LOOM_BUILD_DIR=/tmp/s18/fb timeout 250 bash bench/fused.sh --sweep 30 \
  --only gemm_bias_act_gelu --only gemm_bias_act_identity > $L/f2.log 2>&1
echo "sweep rc=$? $(( $(date +%s) - t0 )) s"; grep -E "^- " "$OUT/sweep/fused.md"
cp $L/f1.log $L/f2.log "$OUT"/
