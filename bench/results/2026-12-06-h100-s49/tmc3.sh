#!/usr/bin/env bash
# Session 49: examples/gemm (IN.loom, 28 mappings) with four transposed tiles on clusters of 1 x 2 appended (OUT.loom):
# the 2 column tiles of a cluster share A's rows (cuBLAS's 2 x 1 clusters of 128 x 224 tiles at 2232x3288x3296,
# 2026-12-02-h200-peer-kernels.md, share that operand; tmc.sh's 224 x 128 tiles on clusters of 2 shared B).
set -eu
in=$1; out=$2
python3 - "$in" "$out" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
maps = re.findall(r"\nmapping sm_90a when\(fastest\) \{\n.*?\n\}\n", src, re.S)
base = [x for x in maps if "tune(U=208, V=128)" in x and "multicast" not in x]
assert len(base) == 1, len(base)
b = base[0]
add = ""
for u, st in ((224, 4), (240, 3), (176, 4), (208, 4)):
    t = b.replace("U=208, V=128", "U=%d, V=128" % u).replace("N_MMA=208", "N_MMA=%d" % u)
    t = t.replace("pipeline(3)\n      smem(227KB)", "pipeline(%d)\n      multicast(1, 2) smem(227KB)" % st)
    assert "multicast(1, 2)" in t
    add += t
open(sys.argv[2], "w").write(src.rstrip("\n") + "\n" + add)
PY
