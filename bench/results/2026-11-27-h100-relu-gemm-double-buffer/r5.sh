#!/usr/bin/env bash
# Session 18 round 5 (experiment): relu_gemm's default mapping as generated vs hand-edited with
# double-buffered A-fragment registers (no wgmma_wait<0> per K step), same machine, alternating.
set -u
cd "$(dirname "$0")/../.."
D=build-gpu/s18/rg; L=/tmp/s18/logs; mkdir -p $L "$OUT"
SH="2048x2048x2048,4096x4096x4096,8192x8192x8192,4096x14336x4096,8192x8192x1024,5448x6448x2800,2256x7968x552"
for round in 1 2; do
  for v in orig db; do
    OUT="$OUT/$v-$round" LOOM_GEN_DIR=$D/$v LOOM_BUILD_DIR=/tmp/s18/rg-$v timeout 200 bash bench/fused.sh --shapes $SH --only relu_gemm > $L/r5-$v-$round.log 2>&1
    echo "$v round $round rc=$?"; grep -E "^- relu_gemm" "$OUT/$v-$round/fused.md"
  done
done
for v in orig db; do for r in 1 2; do echo "== $v $r"; grep -E "^\| [0-9]" "$OUT/$v-$r/fused.md" | cut -d'|' -f2,4,5,7,9; done; done
