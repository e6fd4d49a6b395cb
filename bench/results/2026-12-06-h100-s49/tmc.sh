#!/usr/bin/env bash
# Session 49: examples/gemm (IN.loom) with transposed tiles on clusters appended (OUT.loom): cuBLAS runs its
# tile's fine-grained side along our M on clusters where loom's GEMM trails it most (2026-12-02-h200-peer-kernels.md:
# 2232x3288x3296 224 x 128 on 2 x 1; 408x6896x6408 208 x 128 on 4 x 2; 600x1248x4736 104 x 64 on 4 x 2;
# 1880x5120x3840 152 x 256 on 2 x 1 (not here: four compute warpgroups of 64 x 152 or 160 accumulators do not fit the async-copy twin's registers, and a 152-row A box does not split into two 8-row bands)), and examples/gemm's transposed tiles are all unclustered.
# Candidates: ROWS x COLS (U = the wgmma's n; one compute warpgroup per 64 columns), stages, multicast(S, T).
set -eu
in=$1; out=$2
python3 - "$in" "$out" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
maps = re.findall(r"\nmapping sm_90a when\(fastest\) \{\n.*?\n\}\n", src, re.S)
base = [x for x in maps if "tune(U=208, V=128)" in x]
assert len(base) == 1, len(base)
b = base[0]
cands = [  # (U, V, G, stages, multicast)
    (224, 128, 2, 4, "multicast(2)"),
    (208, 128, 2, 4, "multicast(2, 4)"),
    (104, 64, 1, 8, "multicast(2, 4)"),
    (240, 128, 2, 3, "multicast(2)"),
    (176, 128, 2, 4, "multicast(2)"),
]
add = ""
for u, v, g, st, mc in cands:
    t = b.replace("U=208, V=128", "U=%d, V=%d" % (u, v)).replace("N_MMA=208", "N_MMA=%d" % u)
    t = t.replace("tune(G=2)", "tune(G=%d)" % g).replace("pipeline(3)\n      smem(227KB)", "pipeline(%d)\n      %s smem(227KB)" % (st, mc))
    assert mc in t
    add += t
open(sys.argv[2], "w").write(src.rstrip("\n") + "\n" + add)
PY
