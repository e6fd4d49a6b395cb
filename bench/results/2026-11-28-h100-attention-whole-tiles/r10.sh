#!/usr/bin/env bash
# Session 20, round 10: examples/flash_attention_2 with its when(D > 128) mapping (HD = 256): the full
# attention e2e at D = 64, 128, 256 and the D = 256 rows of the attention bench.
set -u
S=build-gpu/s20
O=${OUT:-/tmp/out}
mkdir -p /tmp/w3
date -u
timeout 420 bash tests/gpu/e2e/attention.sh $S/gen3/flash_attention_2 /tmp/w3 --d "64 128 256" > $O/e2e-fa2-d256.log 2>&1; echo "e2e rc=$?"
grep -E "PASS|FAIL|SUMMARY|built" $O/e2e-fa2-d256.log | sort | uniq -c | head -20
date -u
LOOM_GEN_DIR=$S/gen3 LOOM_BUILD_DIR=/tmp/lb3 OUT=$O timeout 150 bash bench/attention.sh --reps 20 --only-d 256 --no-causal > $O/bench256.log 2>&1; echo "bench rc=$?"
grep -E "^\| 256|^- loom|agree" $O/attention.md | cut -c1-200
date -u
