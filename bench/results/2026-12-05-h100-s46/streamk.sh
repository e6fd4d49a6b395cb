#!/usr/bin/env bash
# Session 46: examples/gemm (24 mappings) + stream-K and transposed candidates for the two shape families the fused
# sweeps lose on (narrow N, long K: 6408x696x7384; small M, long K: 408x6896x6408), as mappings 24-29, in $1/gemm.loom.
set -eu
out=$1
mkdir -p "$out"
. <(sed -n "/^cand() {/,/^EOT\$/p" bench/results/2026-12-05-h100-s45/kteams.sh; echo "}")
{
  cat examples/gemm/gemm.loom
  cand 128 256 64 3 2 256 1 "" "streamk"            # 24: m0 with stream-K
  cand 128 192 64 4 2 192 1 "" "streamk"            # 25: m6 with stream-K
  cand 128 128 64 4 2 128 1 "" "streamk"            # 26: m1 with stream-K
  cand 136 192 64 4 3 136 1 "_t" ""                 # 27: transposed 136 x 192 (3 warpgroups of 64 columns)
  cand 104 192 64 4 3 104 1 "_t" ""                 # 28: transposed 104 x 192
  cand 232 128 64 4 2 232 1 "_t" ""                 # 29: transposed 232 x 128
} > "$out/gemm.loom"
