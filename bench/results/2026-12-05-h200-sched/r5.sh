#!/usr/bin/env bash
# Device call 5 (session 39): flash_attention_3_ppu = r3's flash_attention_3_pp (pingpong forced) with
# the deferred P V issued unconditionally (fa3_ppu-hand-edit.diff: in the first turn it adds 0 x V_0,
# P's fragments zeroed before the loop) instead of `if (v_j > 0) { deferred } else { empty group }`.
# On the development machine ptxas then reuses none of the in-flight wgmma's A registers (scripts/sass_hazards.py:
# 677 writes before, 0 after) and serializes nothing. Correctness (sanitizers included), then the bench.
set -u
cd "$(dirname "$0")/../../.."
S=build-gpu/s39
mkdir -p "$OUT" $S/work5
timeout 200 bash tests/gpu/e2e/attention.sh $S/gen5/flash_attention_3_ppu $S/work5 --d "64 128" > $OUT/r5-attention-fa3_ppu.log 2>&1
echo "fa3_ppu e2e rc=$?"; grep -E "attention_correctness: (PASS|FAIL)|SUMMARY" $OUT/r5-attention-fa3_ppu.log | sort | uniq -c
grep -E "\| FAIL" $OUT/r5-attention-fa3_ppu.log | head -4
export LOOM_GEN_DIR=$S/gen5 LOOM_BUILD_DIR=$S
OUT=$OUT/a timeout 280 bash bench/attention.sh --no-causal --seed 20261208; echo "attention bench rc=$?"
mv $OUT/a/attention.md $OUT/r5-attention.md; mv $OUT/a/attention-compile.txt $OUT/r5-attention-compile.txt; rmdir $OUT/a
