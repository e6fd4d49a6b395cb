#!/usr/bin/env bash
# Session 46: examples/gemm (24 mappings) + tile widths whose B boxes stay on 32-byte sectors (112, 176, 96 columns:
# 224, 352, 192 bytes) beside session 45's 64 x 104, as mappings 24-29, written to $1/gemm.loom.
set -eu
out=$1
mkdir -p "$out"
. <(sed -n "/^cand() {/,/^EOT\$/p" bench/results/2026-12-05-h100-s45/kteams.sh; echo "}")
{
  cat examples/gemm/gemm.loom
  cand 64 112 64 8 1 112 1 "" "multicast(2, 4)"     # 24: 64 x 112 on 2 x 4
  cand 64 112 64 8 1 112 1 "" ""                    # 25: 64 x 112 alone
  cand 64 176 64 6 1 176 1 "" ""                    # 26: 64 x 176 alone
  cand 64 176 64 6 1 176 1 "" "multicast(2, 4)"     # 27: 64 x 176 on 2 x 4
  cand 64 104 64 8 1 104 1 "" "multicast(2, 4)"     # 28: 64 x 104 on 2 x 4 (session 45's m25, the control)
  cand 64 96 64 8 1 96 1 "" "multicast(2, 4)"       # 29: 64 x 96 on 2 x 4
} > "$out/gemm.loom"
