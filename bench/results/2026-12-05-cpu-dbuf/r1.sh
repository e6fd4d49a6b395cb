#!/usr/bin/env bash
# Device call (not run yet: no device was lent in session 42). From the repo root, after prepare.sh, carry build-gpu/s42:
#   1. tests/gpu/e2e/attention.sh on the two double-buffered kernels (flash_attention_2_db at D = 64, 128, 256;
#      flash_attention_3_db at D = 64, 128): every shape against the fp32 reference, poisoned outputs,
#      memcheck / racecheck / synccheck;
#   2. bench/attention.sh: the four kernels of prepare.sh in one process against cuDNN and FA2 (torch).
set -u
mkdir -p "$OUT"
S=build-gpu/s42
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/r1-smi.txt
timeout 200 bash tests/gpu/e2e/attention.sh $S/gen/flash_attention_2_db $S/work2 --d "64 128 256" > $OUT/r1-e2e-fa2_db.log 2>&1
echo "e2e fa2_db rc=$?"; grep -E "attention_correctness: (PASS|FAIL)|SUMMARY" $OUT/r1-e2e-fa2_db.log | sort | uniq -c
timeout 150 bash tests/gpu/e2e/attention.sh $S/gen/flash_attention_3_db $S/work3 --d "64 128" > $OUT/r1-e2e-fa3_db.log 2>&1
echo "e2e fa3_db rc=$?"; grep -E "attention_correctness: (PASS|FAIL)|SUMMARY" $OUT/r1-e2e-fa3_db.log | sort | uniq -c
export LOOM_GEN_DIR=$S/gen LOOM_BUILD_DIR=$S
OUT=$OUT/a timeout 220 bash bench/attention.sh --no-causal --seed 20261205; echo "attention bench rc=$?"
mv $OUT/a/attention.md $OUT/r1-attention.md 2>/dev/null; mv $OUT/a/attention-compile.txt $OUT/r1-attention-compile.txt 2>/dev/null
rmdir $OUT/a 2>/dev/null || true
