#!/usr/bin/env bash
# Device call 6 (session 39): the compiler's fix (every-path.patch: the deferred mma issued on every
# path, iteration 0's with zero A fragments; pingpong.cpp emit_deferred), build-gpu/s39/gen6:
# flash_attention_2, flash_attention_2_opt, flash_attention_3, flash_attention_3_causal as committed
# examples, and flash_attention_3_pp (pingpong forced, as in r3). Correctness with sanitizers
# (three at once: nothing timed), then the attention bench, causal rows included.
set -u
cd "$(dirname "$0")/../../.."
S=build-gpu/s39
mkdir -p "$OUT" $S/work6a $S/work6b $S/work6c
( timeout 300 bash tests/gpu/e2e/attention.sh $S/gen6/flash_attention_3_pp $S/work6a --d "64 128" > $OUT/r6-attention-fa3_pp.log 2>&1; echo "rc=$?" >> $OUT/r6-attention-fa3_pp.log ) &
( timeout 300 bash tests/gpu/e2e/attention.sh $S/gen6/flash_attention_2 $S/work6b --d "64 128 256" > $OUT/r6-attention-fa2.log 2>&1; echo "rc=$?" >> $OUT/r6-attention-fa2.log ) &
( timeout 300 bash tests/gpu/e2e/attention.sh $S/gen6/flash_attention_3_causal $S/work6c --d "64 128" > $OUT/r6-attention-fa3_causal.log 2>&1; echo "rc=$?" >> $OUT/r6-attention-fa3_causal.log ) &
wait
for f in fa3_pp fa2 fa3_causal; do echo "== $f: $(tail -1 $OUT/r6-attention-$f.log)"; grep -E "attention_correctness: (PASS|FAIL)|SUMMARY" $OUT/r6-attention-$f.log | sort | uniq -c; grep -E "\| FAIL" $OUT/r6-attention-$f.log | head -3; done
export LOOM_GEN_DIR=$S/gen6 LOOM_BUILD_DIR=$S
OUT=$OUT/a timeout 240 bash bench/attention.sh --seed 20261209; echo "attention bench rc=$?"
mv $OUT/a/attention.md $OUT/r6-attention.md; mv $OUT/a/attention-compile.txt $OUT/r6-attention-compile.txt; rmdir $OUT/a
