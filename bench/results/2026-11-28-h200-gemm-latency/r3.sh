#!/usr/bin/env bash
# Round 3 on the GPU machine: latency.cu built three ways (build-gpu/s23/latency_{B,D1,D2}):
# B the 32-bit tile decode (round 2), D1 B + warp 1 reads the parameters before the setup barrier
# (loom::rt::touch_params, as committed), D2 the same read after the barrier. Each run twice, alternating.
set -u
S="153x200x136 208x200x520 451x248x224 1296x328x416 1743x264x760 3056x256x1808 5352x712x344 4704x784x848 1034x3304x168 4376x3320x1080"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv
for r in 1 2; do
  for v in B D1 D2; do
    build-gpu/s23/latency_$v $S > $OUT/r3-$v-$r.md 2>&1
  done
done
for v in B D1 D2; do echo "== $v"; cat $OUT/r3-$v-2.md; done
