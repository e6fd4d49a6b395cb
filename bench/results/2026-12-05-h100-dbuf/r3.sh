#!/usr/bin/env bash
# Session 43, device call 3 (same warm H100; carry build-gpu/s42): the attention bench again with another seed, on
# flash_attention_2 and flash_attention_2_db alone (a second timing of the pair).
mkdir -p $OUT g2 && cp -r build-gpu/s42/gen/flash_attention_2 build-gpu/s42/gen/flash_attention_2_db g2/ && export LOOM_GEN_DIR=$PWD/g2 LOOM_BUILD_DIR=build-gpu/s42 && OUT=$OUT timeout 200 bash bench/attention.sh --no-causal --seed 20261206 > $OUT/r3-bench.log 2>&1; echo rc=$?; grep -E "^D=|geomean" $OUT/r3-bench.log; mv $OUT/attention.md $OUT/r3-attention.md
