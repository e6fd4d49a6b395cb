#!/usr/bin/env bash
# Session 43, device call 2 (same warm H100; carry build-gpu/s42): r1.sh's step 1 again with its work folders made,
# and the same for flash_attention_3_db (`pingpong(double_buffer)` on the hand-pipelined loop) at D = 64 and 128.
mkdir -p $OUT build-gpu/s42/work2 build-gpu/s42/work3; s=$(date +%s)
timeout 170 bash tests/gpu/e2e/attention.sh build-gpu/s42/gen/flash_attention_2_db build-gpu/s42/work2 --d "64 128 256" > $OUT/r2-e2e-fa2_db.log 2>&1
echo "fa2_db rc=$? $(( $(date +%s) - s )) s"; grep -E "attention_correctness: (PASS|FAIL)|SUMMARY|FAIL" $OUT/r2-e2e-fa2_db.log | sort | uniq -c | head
timeout 120 bash tests/gpu/e2e/attention.sh build-gpu/s42/gen/flash_attention_3_db build-gpu/s42/work3 --d "64 128" > $OUT/r2-e2e-fa3_db.log 2>&1
echo "fa3_db rc=$? $(( $(date +%s) - s )) s"; grep -E "attention_correctness: (PASS|FAIL)|SUMMARY|FAIL" $OUT/r2-e2e-fa3_db.log | sort | uniq -c | head
