#!/usr/bin/env bash
# Session 16 round 4b: bench/fused.sh for gemm_bias_act (gelu; identity on the listed shapes) and
# add_gemm, the committed examples (gen-new) against the previous commit's (gen-old), --sweep 30.
set -u
cd "$(dirname "$0")/../.."
G=build-gpu/s16d
for w in new old; do
  OUT="$OUT/$w" LOOM_GEN_DIR=$G/gen-$w LOOM_BUILD_DIR=/tmp/s16d/fb-$w timeout 280 bash bench/fused.sh --sweep 30 \
    --only gemm_bias_act_gelu --only gemm_bias_act_identity --only add_gemm > /tmp/s16d/fused-$w.log 2>&1
  echo "fused gen-$w rc=$?"; grep -E "^- (gemm_bias_act|add_gemm)" "$OUT/$w/fused.md"
done
