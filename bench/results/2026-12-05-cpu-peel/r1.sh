#!/usr/bin/env bash
# Device call (not run yet: no device was lent in session 41). From the repo root, with build-gpu/s41 carried:
#   1. tests/gpu/e2e/attention.sh on flash_attention_2_dbuf (D = 64, 128, 256): every shape against the fp32
#      reference, poisoned outputs, memcheck / racecheck / synccheck;
#   2. bench/attention.sh: loom fa2 (guarded, committed) and fa2_dbuf in one process against cuDNN and FA2.
set -u
mkdir -p "$OUT"
S=build-gpu/s41
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/r1-smi.txt
timeout 300 bash tests/gpu/e2e/attention.sh $S/gen/flash_attention_2_dbuf $S/work --d "64 128 256" > $OUT/r1-e2e-dbuf.log 2>&1
echo "e2e dbuf rc=$?"; grep -E "attention_correctness: (PASS|FAIL)|SUMMARY" $OUT/r1-e2e-dbuf.log | sort | uniq -c
export LOOM_GEN_DIR=$S/gen LOOM_BUILD_DIR=$S
OUT=$OUT/a timeout 280 bash bench/attention.sh --no-causal --seed 20261205; echo "attention bench rc=$?"
mv $OUT/a/attention.md $OUT/r1-attention.md 2>/dev/null; mv $OUT/a/attention-compile.txt $OUT/r1-attention-compile.txt 2>/dev/null
rmdir $OUT/a 2>/dev/null || true
