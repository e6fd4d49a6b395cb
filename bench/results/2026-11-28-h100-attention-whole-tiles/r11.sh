#!/usr/bin/env bash
# Session 20, round 11: flash_attention_2 compiled with entry(E=f16), against the (now 16-bit generic)
# attention_correctness; the same test in bf16 mode on the committed example.
set -u
S=build-gpu/s20
O=${OUT:-/tmp/out}
date -u
timeout 150 $S/bin/ac_f16 --f16 --d "64 128 256" --seed 11 > $O/f16.log 2>&1; echo "f16 rc=$?"; grep -E "^attention_correctness" $O/f16.log | tail -3
timeout 150 $S/bin/ac_bf16 --d "64 128 256" --seed 12 > $O/bf16.log 2>&1; echo "bf16 rc=$?"; grep -E "^attention_correctness" $O/bf16.log | tail -2
for sh in 2x200x300x64 1x77x77x128 2x200x300x256; do
  for tool in memcheck racecheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 $S/bin/ac_f16 --f16 --only $sh --seed 3 > /tmp/s.log 2>&1
    echo "f16 $sh $tool: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/s.log | tail -1)"
  done
done
date -u
