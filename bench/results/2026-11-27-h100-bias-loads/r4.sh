#!/usr/bin/env bash
# Session 18 round 4: gemm_bias_act (GELU) sweep with every mapping by index (pick quality after the bias fix).
set -u
cd "$(dirname "$0")/../.."
G=build-gpu/s18; L=/tmp/s18/logs; mkdir -p $L "$OUT"
t0=$(date +%s)
OUT="$OUT/bym" LOOM_GEN_DIR=$G/gen LOOM_BUILD_DIR=/tmp/s18/fb4 timeout 500 bash bench/fused.sh --sweep 30 --by-mapping \
  --only gemm_bias_act_gelu > $L/f4.log 2>&1
echo "rc=$? $(( $(date +%s) - t0 )) s"; grep -E "^- gemm" "$OUT/bym/fused.md"
cp $L/f4.log "$OUT"/
