#!/usr/bin/env bash
# Session 48: examples/gemm (IN.loom) with five candidates appended (OUT.loom): its 128 x 192 multicast(2) mapping
# with the tile 208 or 224 columns wide (wgmma n = 208 / 224), as cuBLAS runs 128 x 208 tiles on the shapes where
# loom's GEMM loses most (408x6896x6408 on clusters of 4 x 2, ncu, session 47): 208 on clusters of 2, of 4 x 2 and
# alone; 224 on clusters of 2 and of 4 x 2 (32 mappings in all, bench/gemm_mappings.cu's limit). B is MN-major in
# shared memory, so a 208- or 224-wide tile still loads four 64-column boxes of B a K step (48 / 32 columns that
# the tile does not use): the tiles fit the SMs better (1264x2688: 130 tiles of 128 x 208 against 110 of 128 x 256)
# at the price of those bytes.
set -eu
in=$1; out=$2
python3 - "$in" "$out" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
maps = re.findall(r"\nmapping sm_90a when\(fastest\) \{\n.*?\n\}\n", src, re.S)
base = [x for x in maps if "tune(U=128, V=192)" in x and "multicast(2)" in x]
assert len(base) == 1, len(base)
add = ""
for w in (208, 224):
    t = base[0].replace("V=192", "V=%d" % w).replace("N_MMA=192", "N_MMA=%d" % w)
    add += t + t.replace("multicast(2)", "multicast(4, 2)")
    if w == 208: add += t.replace(" multicast(2)", "")
open(sys.argv[2], "w").write(src.rstrip("\n") + "\n" + add)
PY
