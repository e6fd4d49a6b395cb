#!/usr/bin/env bash
# Session 43, device call 1 (ran on an H100, kind nvidia-h100-x1, 12:08 UTC) (carry build-gpu/s42 and build-gpu/s40; made on the development machine by
# bench/results/2026-12-05-cpu-dbuf/prepare.sh and bench/results/2026-12-05-h200-release/prepare2.sh), each step capped so
# that the whole call ends within 450 s (little device time was left):
#   1. tests/gpu/e2e/attention.sh on flash_attention_2_db (`pingpong(double_buffer)`) at D = 64, 128, 256: every shape
#      against the fp32 reference, poisoned outputs, memcheck / racecheck / synccheck;
#   2. bench/attention.sh: the four kernels of prepare.sh (flash_attention_2, _2_db, flash_attention_3, _3_db) against
#      cuDNN, FA2 (torch) and Triton in one process, non-causal, D = 64 and 128;
#   3. session 40's r3.sh (ncu at 487x1688x7536: loom's mappings 23 and 3 and cuBLAS's kernel) -> $OUT/r3.tgz.
set -u
S=build-gpu/s42
mkdir -p "$OUT" $S/work2  # (as run on 2026-12-05 the work folder was not made: step 1 failed to link, r2.sh redid it)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/r1-smi.txt
start=$(date +%s)
timeout 130 bash tests/gpu/e2e/attention.sh $S/gen/flash_attention_2_db $S/work2 --d "64 128 256" > $OUT/r1-e2e-fa2_db.log 2>&1
echo "e2e fa2_db rc=$? after $(( $(date +%s) - start )) s"; grep -E "attention_correctness: (PASS|FAIL)|SUMMARY" $OUT/r1-e2e-fa2_db.log | sort | uniq -c
( export LOOM_GEN_DIR=$S/gen LOOM_BUILD_DIR=$S
  OUT=$OUT/a timeout 200 bash bench/attention.sh --no-causal --seed 20261205; echo "attention bench rc=$? after $(( $(date +%s) - start )) s" )
mv $OUT/a/attention.md $OUT/r1-attention.md 2>/dev/null; mv $OUT/a/attention-compile.txt $OUT/r1-attention-compile.txt 2>/dev/null
rmdir $OUT/a 2>/dev/null || true
left=$(( 450 - ($(date +%s) - start) ))
if [ $left -gt 60 ]; then timeout $left bash bench/results/2026-12-05-h200-release/r3.sh; echo "r3 (ncu) rc=$? after $(( $(date +%s) - start )) s"; fi
