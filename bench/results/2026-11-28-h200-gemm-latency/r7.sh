#!/usr/bin/env bash
# Round 7 on the GPU machine: E (round 4's build) against H, the same kernels with the first tile's
# first ring-depth stages issued by thread 0 right after it initializes the barriers, before the
# setup's __syncthreads (the producer loop skips them). Twice each, alternating.
set -u
S="153x200x136 451x248x224 1296x328x416 1743x264x760 3056x256x1808 5352x712x344 4704x784x848"
for r in 1 2; do
  for v in E H; do
    timeout 120 build-gpu/s23/latency_$v $S > $OUT/r7-$v-$r.md 2>&1 || echo "$v $r failed: $?"
  done
done
for v in E H; do echo "== $v"; grep -E "cold" $OUT/r7-$v-2.md; done
