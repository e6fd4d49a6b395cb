#!/usr/bin/env bash
# Device call 1 (session 39): correctness and sanitizers of this round's programs (prepare.sh).
#   gemm_reduce (committed; its third mapping schedule(optimal)): tests/gpu/e2e/gemm_reduce.sh
#     (every shape through the pick; memcheck / racecheck / synccheck at 129x257x65 through the pick
#     and on every mapping by index; memcheck at 128x256x64)
#   flash_attention_2_opt: tests/gpu/e2e/attention.sh --d "64 128 256" (every shape per D, fp32
#     reference, poisoned and guarded outputs, error paths; sanitizers on 1x77x77xD and 2x200x300xD;
#     unaligned bases)
# Both run at once (two processes on the GPU: correctness only, nothing timed).
set -u
cd "$(dirname "$0")/../../.."
S=build-gpu/s39
mkdir -p "$OUT" $S/work
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $OUT/r1-smi.txt
( timeout 420 bash tests/gpu/e2e/gemm_reduce.sh $S/gen/gemm_reduce $S/work > $OUT/r1-gemm_reduce.log 2>&1; echo "gemm_reduce e2e rc=$?" >> $OUT/r1-gemm_reduce.log ) &
( timeout 480 bash tests/gpu/e2e/attention.sh $S/gen/flash_attention_2_opt $S/work --d "64 128 256" > $OUT/r1-attention-fa2_opt.log 2>&1; echo "attention e2e rc=$?" >> $OUT/r1-attention-fa2_opt.log ) &
wait
tail -3 $OUT/r1-gemm_reduce.log
grep -E "PASS|FAIL|passed|failed|ERROR SUMMARY|RACECHECK SUMMARY" $OUT/r1-attention-fa2_opt.log | tail -20
tail -2 $OUT/r1-attention-fa2_opt.log
