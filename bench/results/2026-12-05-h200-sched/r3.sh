#!/usr/bin/env bash
# Device call 3 (session 39): examples/flash_attention_3 with `pingpong` added to both mappings
# (flash_attention_3_pp; generated with the compiler's refusal of that combination bypassed, see the
# report), whose turns miscomputed on an H100 on 2026-11-27: correctness three times over (every
# shape, run-to-run identity, sanitizers), then the attention bench with all four loom kernels.
set -u
cd "$(dirname "$0")/../../.."
S=build-gpu/s39
mkdir -p "$OUT" $S/work3
for i in 1 2 3; do
  timeout 150 bash tests/gpu/e2e/attention.sh $S/gen/flash_attention_3_pp $S/work3 --d "64 128" > $OUT/r3-attention-fa3_pp-$i.log 2>&1
  echo "fa3_pp e2e run $i rc=$?"; grep -E "attention_correctness: (PASS|FAIL) \(" $OUT/r3-attention-fa3_pp-$i.log | head -3
  grep -E "FAIL|mismatch|non-finite" $OUT/r3-attention-fa3_pp-$i.log | head -5
done
export LOOM_GEN_DIR=$S/gen LOOM_BUILD_DIR=$S
OUT=$OUT/a timeout 300 bash bench/attention.sh --no-causal --seed 20261206; echo "attention bench rc=$?"
mv $OUT/a/attention.md $OUT/r3-attention.md; mv $OUT/a/attention-compile.txt $OUT/r3-attention-compile.txt; rmdir $OUT/a
