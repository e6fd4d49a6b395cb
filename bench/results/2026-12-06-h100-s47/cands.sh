#!/usr/bin/env bash
# Session 47: examples/gemm_bias_act or examples/add_gemm (IN.loom) with three candidates appended (OUT.loom), the
# ones r1 found faster than examples/gemm's menu where the fused sweeps lose most: the example's own 128 x 256
# multicast(2) mapping on clusters of 4 x 1 and 2 x 2, and its 128 x 192 multicast(2) mapping on 2 x 4
# (multicast(S, T): B shared by S row tiles, A by T column tiles; docs/mapping.md).
set -eu
in=$1; out=$2
python3 - "$in" "$out" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
maps = re.findall(r"\nmapping sm_90a when\(fastest\) \{\n.*?\n\}\n", src, re.S)
def one(u, v):
    m = [x for x in maps if "tune(U=%d, V=%d)" % (u, v) in x and "multicast(2)" in x]
    assert len(m) == 1, (u, v, len(m))
    return m[0]
add = ""
for (u, v, mc) in [(128, 256, "multicast(4, 1)"), (128, 256, "multicast(2, 2)"), (128, 192, "multicast(2, 4)")]:
    add += one(u, v).replace("multicast(2)", mc)
open(sys.argv[2], "w").write(src.rstrip("\n") + "\n" + add)
PY
