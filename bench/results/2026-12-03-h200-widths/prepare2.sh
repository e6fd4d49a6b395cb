#!/usr/bin/env bash
# On the development machine: r3.sh's kernels into build-gpu/s34b, from the loom of commit 6b3a4a9 (padded swizzle
# rows, the 64-byte tail slice of the staged epilogue): the same widths on clusters of two blocks sharing B by TMA
# multicast (round 1's plain candidates lost to the committed multicast mappings on the mid-size shapes). candidates.py
# copies examples/gemm's 128 x 192 multicast(2) mapping as mappings 23-25 (128 x 224, 3 stages, staged epilogue;
# 128 x 224, 4 stages, direct epilogue; 128 x 160, 4 stages, staged) and examples/gemm_bias_act's (GELU) as 13-14
# (128 x 224, 3; 128 x 160, 4). gm (26 mappings), gemm_e2e, gba_e2e and lib/libgba.so as in prepare1.sh.
S=build-gpu/s34b GEMM_SPECS="128x192mc:224:3 128x192mc:224:4 128x192mc:160:4" GBA_SPECS="128x192mc:224:3 128x192mc:160:4" MAPPINGS=26 \
  exec bash "$(dirname "$0")/prepare1.sh"
