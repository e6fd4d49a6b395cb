#!/usr/bin/env bash
# Round 6 on the GPU machine: does the place of the producer's code in the binary set its start?
# E the 32-bit tile decode (round 4's build), F the same with the roles' branches swapped (consumer
# in the if, producer in the else), G the producer's branch marked likely (__builtin_expect).
# Per build: where the first TMA load sits in each kernel's SASS (sass_order.py), then latency.cu.
set -u
D=bench/results/2026-11-28-h200-gemm-latency
for v in E F G; do
  echo "== $v"
  python3 $D/sass_order.py build-gpu/s23/latency_$v
  build-gpu/s23/latency_$v 153x200x136 1743x264x760 3056x256x1808 > $OUT/r6-$v.md 2>&1
  grep -E "\| m(0|2|8) cold" $OUT/r6-$v.md
done
