#!/usr/bin/env bash
# Session 46: examples/gemm (24 mappings) + stream-K, transposed and multicast(S, T) candidates for the two shape families the fused
# sweeps lose on (narrow N, long K: 6408x696x7384; small M, long K: 408x6896x6408), as mappings 24-31, in $1/gemm.loom.
set -eu
out=$1
mkdir -p "$out"
. <(sed -n "/^cand() {/,/^EOT\$/p" bench/results/2026-12-05-h100-s45/kteams.sh; echo "}")
{
  cat examples/gemm/gemm.loom
  cand 128 256 64 3 2 256 1 "" "streamk"            # 24: m0 with stream-K
  cand 128 192 64 4 2 192 1 "" "streamk"            # 25: m6 with stream-K
  cand 128 256 64 4 2 256 1 "" "multicast(4, 1)"    # 26: 128 x 256, B shared by 4 row tiles
  cand 136 192 64 4 3 136 1 "_t" ""                 # 27: transposed 136 x 192 (3 warpgroups of 64 columns)
  cand 128 256 64 4 2 256 1 "" "multicast(2, 2)"    # 28: 128 x 256 on 2 x 2
  cand 128 192 64 4 2 192 1 "" "multicast(1, 4)"    # 29: 128 x 192, A shared by 4 column tiles
  cand 128 256 64 4 2 256 1 "" "multicast(4, 2)"    # 30: 128 x 256 on 4 x 2
  cand 128 192 64 4 2 192 1 "" "multicast(2, 4)"    # 31: 128 x 192 on 2 x 4
} > "$out/gemm.loom"
