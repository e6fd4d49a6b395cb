#!/usr/bin/env bash
# On the development machine: examples/gemm + deeper rings for the multicast tiles (r4.sh), into
# OUTDIR/gemm_deep.loom: m15 128 x 256 multicast(2) 4 stages, m16 128 x 256 4 stages (no multicast),
# m17 128 x 192 multicast(2) 5 stages, m18 192 x 192 multicast(2) 4 stages. At these depths the
# epilogue's staging tiles no longer fit the 227 KB, and the back end stores straight from registers.
set -eu
out=$1
mkdir -p "$out"
root=$(cd "$(dirname "$0")/../../.." && pwd)
ex=$root/examples/gemm/gemm.loom
# the example's candidate starting at line $1 (its `mapping sm_90a when(fastest) {` line), with sed edits $2
cand() { awk -v s="$1" 'NR >= s { print; if ($0 ~ /^}/) exit }' "$ex" | sed -e "$2"; echo; }
l256=$(grep -n "tune(U=128, V=256)" "$ex" | sed -n 2p | cut -d: -f1)   # the 128 x 256 multicast candidate's host line
l192=$(grep -n "tune(U=128, V=192)" "$ex" | sed -n 2p | cut -d: -f1)
l1919=$(grep -n "tune(U=192, V=192)" "$ex" | sed -n 2p | cut -d: -f1)
{ cat "$ex"; echo
  cand $((l256 - 1)) 's/pipeline(3)$/pipeline(4)/'
  cand $((l256 - 1)) 's/pipeline(3)$/pipeline(4)/; s/      multicast(2) smem(227KB);/      smem(227KB);/'
  cand $((l192 - 1)) 's/pipeline(4)$/pipeline(5)/'
  cand $((l1919 - 1)) 's/pipeline(3)$/pipeline(4)/'
} > "$out/gemm_deep.loom"
