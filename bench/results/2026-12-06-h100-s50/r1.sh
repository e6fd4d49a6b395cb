#!/usr/bin/env bash
# Device call 1 (session 50), carry build-gpu/s50.tar.xz (prepare.sh): bench/attention.sh on loom FA2
# (hand), loom FA3 (hand-pipelined) and loom fa2_opt (FA2 with schedule(optimal) everywhere) against
# cuDNN, FlashAttention-2 and Triton in one process, D = 64 and 128 non-causal, then D = 256; then
# tests/gpu/e2e/attention.sh on fa2_opt for D = 256, 64 and 128 (correctness, sanitizers, unaligned bases).
set -u
cd "$(dirname "$0")/../../.."
mkdir -p "$OUT"
tar -C build-gpu -xJf build-gpu/s50.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $OUT/r1-smi.txt
export LOOM_GEN_DIR=build-gpu/s50/gen LOOM_BUILD_DIR=build-gpu/s50
t0=$(date +%s)
OUT=$OUT/a timeout 230 bash bench/attention.sh --no-causal --seed 20261206; echo "attention bench rc=$? ($(( $(date +%s) - t0 )) s)"
mv $OUT/a/attention.md $OUT/r1-attention.md; mv $OUT/a/attention-compile.txt $OUT/r1-attention-compile.txt
OUT=$OUT/b timeout 120 bash bench/attention.sh --no-causal --only-d 256 --seed 20261206; echo "attention bench D=256 rc=$? ($(( $(date +%s) - t0 )) s)"
mv $OUT/b/attention.md $OUT/r1-attention-d256.md
rmdir $OUT/a $OUT/b 2>/dev/null || true
mkdir -p build-gpu/s50/work
ATTENTION_E2E_BIN=build-gpu/s50/bin/attention_e2e_fa2_opt timeout $(( 575 - ($(date +%s) - t0) )) \
  bash tests/gpu/e2e/attention.sh build-gpu/s50/gen/flash_attention_2_opt build-gpu/s50/work --d "256 64 128" > $OUT/r1-e2e-fa2_opt.log 2>&1
echo "attention e2e rc=$? ($(( $(date +%s) - t0 )) s)"
grep -E "PASS|FAIL|passed|failed|ERROR SUMMARY|RACECHECK SUMMARY" $OUT/r1-e2e-fa2_opt.log | tail -20
