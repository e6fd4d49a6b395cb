#!/usr/bin/env bash
# Round 2 on the GPU machine: latency.cu built three ways (build-gpu/s23/latency_{A,B,C}):
# A the committed compiler's gemm.cu (64-bit tile decode), B the 32-bit tile decode,
# C B with every tile stored straight from registers (staged forced false). Each run twice, alternating.
set -u
S="153x200x136 208x200x520 451x248x224 1296x328x416 1743x264x760 3056x256x1808 5352x712x344 4704x784x848 1034x3304x168 4376x3320x1080"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv
for r in 1 2; do
  for v in A B C; do
    build-gpu/s23/latency_$v $S > $OUT/r2-$v-$r.md 2>&1
  done
done
for v in A B C; do echo "== $v"; cat $OUT/r2-$v-2.md; done
