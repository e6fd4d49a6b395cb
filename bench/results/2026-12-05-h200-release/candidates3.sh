#!/usr/bin/env bash
# candidates3.sh EXAMPLE.loom OUT.loom (from 2026-12-02-h200-limits/candidates2.sh): examples/gemm with plain (untransposed) candidate tiles appended as when(fastest)
# mappings 23..: U x V tiles (M x N), G compute warpgroups of 64 rows, W-deep K steps, STAGES ring slots, EXTRA options.
set -eu
src=$1 dst=$2
cp "$src" "$dst"
echo "" >> "$dst"
echo "// Session 40 candidates (bench/results/2026-12-05-h200-release/candidates3.sh): multicast(S, T) with cuBLAS's tile and cluster shapes." >> "$dst"
# cand U V W STAGES EXTRA: candidates2.sh's function (one when(fastest) mapping of U x V tiles, G = U / 64 compute
# warpgroups, W-deep K steps, STAGES ring slots, EXTRA block options), taken from that file.
eval "$(sed -n '/^cand() {/,/^LOOM$/p' "$(dirname "$0")/../2026-12-02-h200-limits/candidates2.sh"; echo '}')"
cand 64 128 64 8 "multicast(4, 2)"   # 23: cuBLAS's at 487x1688x7536 (nvjet_sm90_tst_64x128_64x8_4x2: 64 x 128 tiles, 64-deep K steps, 8 stages, 4 x 2 clusters)
cand 64 128 64 8 "multicast(2, 4)"   # 24: the same tile, 2 x 4 clusters
cand 128 128 64 5 "multicast(4, 2)"  # 25: 128 x 128 on 4 x 2
cand 128 256 64 4 "multicast(2, 2)"  # 26: 128 x 256 on 2 x 2 (examples/gemm's m10 is the same tile on multicast(2))
cand 128 64 64 8 "multicast(4, 2)"   # 27: round 1's m24 (128 x 64 on 4 x 2)
cand 64 128 64 8 "multicast(2, 2)"   # 28: round 1's m27 (64 x 128 on 2 x 2)
