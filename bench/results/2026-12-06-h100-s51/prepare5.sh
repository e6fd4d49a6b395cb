#!/usr/bin/env bash
# Session 51 (prepared for a later session; not run): build-gpu/s51e.tar.xz for r5.sh: examples/gemm's 28 mappings + the
# transposed 224 x 128 tile on clusters of 2 sharing B, 4 stages (session 49's tmc.sh candidate: cuBLAS's tile and
# cluster at 2232x3288x3296, where it ran 80 µs against cuBLAS's 71), as bench/gemm_mappings.cu with -lineinfo (gm29).
set -eu
S=build-gpu/s51e
L=${LOOM:-build/loom}
rm -rf $S; mkdir -p $S/gen/gemm $S/bin
python3 - examples/gemm/gemm.loom $S/gen/gemm/gemm.loom <<'PY'
import re, sys
src = open(sys.argv[1]).read()
maps = re.findall(r"\nmapping sm_90a when\(fastest\) \{\n.*?\n\}\n", src, re.S)
base = [x for x in maps if "tune(U=208, V=128)" in x and "multicast" not in x]
assert len(base) == 1, len(base)
t = base[0].replace("U=208, V=128", "U=224, V=128").replace("N_MMA=208", "N_MMA=224")
t = t.replace("pipeline(3)\n      smem(227KB)", "pipeline(4)\n      multicast(2) smem(227KB)")
assert "multicast(2)" in t
open(sys.argv[2], "w").write(src.rstrip("\n") + "\n" + t)
PY
$L run --cpu $S/gen/gemm/gemm.loom --size M=129,N=257,K=65 | tail -1
$L compile $S/gen/gemm/gemm.loom -o $S/gen/gemm
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Itests/gpu -I$S/gen/gemm \
  -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=29 bench/gemm_mappings.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas \
  -o $S/bin/gm29 -Xptxas -v > $S/gm29.log 2>&1 || { cat $S/gm29.log; exit 1; }
grep -h "spill" $S/gm29.log | sort | uniq -c | sort -rn | head -3
tar cf - $S/bin | xz -T2 > build-gpu/s51e.tar.xz
ls -la build-gpu/s51e.tar.xz
