#!/usr/bin/env bash
# Device call 2 (session 39): bench/attention.sh on prepare.sh's kernels (loom FA2 hand, loom FA3 hand-
# pipelined, loom fa2_opt = FA2 with schedule(optimal)) against cuDNN, FlashAttention-2 and Triton
# in one process; D = 64 and 128 (non-causal, the issue's comparison), then D = 256.
set -u
cd "$(dirname "$0")/../../.."
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/r2-smi.txt
export LOOM_GEN_DIR=build-gpu/s39/gen LOOM_BUILD_DIR=build-gpu/s39
OUT=$OUT/a timeout 330 bash bench/attention.sh --no-causal --seed 20261205; echo "attention bench rc=$?"
mv $OUT/a/attention.md $OUT/r2-attention.md; mv $OUT/a/attention-compile.txt $OUT/r2-attention-compile.txt
OUT=$OUT/b timeout 200 bash bench/attention.sh --no-causal --only-d 256 --seed 20261205; echo "attention bench D=256 rc=$?"
mv $OUT/b/attention.md $OUT/r2-attention-d256.md
rmdir $OUT/a $OUT/b 2>/dev/null || true
