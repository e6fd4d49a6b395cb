#!/usr/bin/env bash
# Session 28, device call 6 (prepare6.sh's kernels in build-gpu/s28e): examples/flash_attention_2's D > 128 mapping,
# whose epilogue this commit stages half a tile at a time (it stored from registers before):
#   1. tests/gpu/e2e/attention.sh on new/ for D = 256 (every shape, the sanitizers, the unaligned bases);
#   2. bench/attention_bench.py at D = 256, the old and the new library beside cuDNN / FA2 / Triton.
set -u
S=build-gpu/s28e
T=$(mktemp -d)
ATTENTION_E2E_BIN=$S/att_e2e timeout 300 bash tests/gpu/e2e/attention.sh $S/new/fa2 $T --d "256" > $T/r6-e2e.log 2>&1
echo "e2e rc=$? $(grep -cE 'FAIL' $T/r6-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r6-e2e.log | sort | uniq -c | tr '\n' ' ')"
timeout 200 python3 bench/attention_bench.py --lib fa2_old=$S/lib/libfa2_old.so --lib fa2=$S/lib/libfa2_new.so --only-d 256 --no-causal \
  --out $T/r6-attention.md --command "bash bench/results/2026-12-02-h200-pingpong/r6.sh" > $T/r6-attention.log 2>&1
echo "attention rc=$?"; grep -E "^\| |geomean" $T/r6-attention.md | head -20
cp $T/r6-e2e.log $T/r6-attention.md $T/r6-attention.log $OUT/
