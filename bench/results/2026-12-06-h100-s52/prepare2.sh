#!/usr/bin/env bash
# Session 52: the hand-edited GEMM builds of r2.sh (build-gpu/s52.tar.xz: base, onebar, l2p) and r3.sh
# (build-gpu/s52b.tar.xz: base, l2p64, l2none, pf, sk34). Experiments on the generated code, not compiler changes:
#  base   examples/gemm (28 mappings) as this tree's loom generates it
#  onebar each TMA kernel's full barriers of a K step merged into one (onebar.py)
#  l2p / l2p64 / l2none   base with runtime/loom/host.h's tensor-map L2 promotion 256 B / 64 B / none (128 B committed)
#  pf     base + an L2 prefetch (cp.async.bulk.prefetch.tensor) of the boxes one ring depth ahead (prefetch.py)
#  sk34   examples/gemm + six split-K candidates for small, long-K calls (mappings 28-33; see r3.sh)
set -eu
S=build-gpu/s52
H=bench/results/2026-12-06-h100-s52
L=${LOOM:-build/loom}
rm -rf $S; mkdir -p $S/base $S/onebar $S/pf $S/sk $S/bin
$L compile examples/gemm/gemm.loom -o $S/base
cp $S/base/gemm.h $S/onebar/; python3 $H/onebar.py $S/base/gemm.cu $S/onebar/gemm.cu
cp $S/base/gemm.h $S/pf/; python3 $H/prefetch.py $S/base/gemm.cu $S/pf/gemm.cu
for p in 256B 64B NONE; do
  rm -rf $S/rt$p; cp -r runtime $S/rt$p
  sed -i "s/CU_TENSOR_MAP_L2_PROMOTION_L2_128B;/CU_TENSOR_MAP_L2_PROMOTION_$( [ $p = NONE ] && echo NONE || echo L2_$p );/" $S/rt$p/loom/host.h
done
python3 - <<'PY'
import re
src = open("examples/gemm/gemm.loom").read()
maps = re.findall(r"\nmapping sm_90a when\(fastest\) \{\n.*?\n\}\n", src, re.S)
def find(key, extra=None):
    c = [m for m in maps if key in m and "multicast" not in m and "splitk" not in m and (extra is None or extra in m)]
    assert len(c) == 1, (key, len(c)); return c[0]
def mk(m, depth, S):
    return re.sub(r"pipeline\(\d+\)", "pipeline(%d)" % depth, m).replace("smem(227KB)", "splitk(%d) smem(227KB)" % S)
t48, t80, t112, t176 = (find("tune(U=%d, V=128)" % u) for u in (48, 80, 112, 176))
n64 = find("tune(U=64, V=128)", "pipeline(8)")
new = [mk(t48, 8, 4), mk(t112, 4, 2), mk(t80, 6, 4), mk(n64, 6, 2), mk(n64, 6, 4), mk(t176, 3, 2)]
open("build-gpu/s52/sk/gemm.loom", "w").write(src.rstrip("\n") + "\n" + "".join(new))
PY
$L run --cpu $S/sk/gemm.loom --size M=129,N=257,K=65 | tail -1
$L compile $S/sk/gemm.loom -o $S/sk
build() {  # NAME GENDIR RUNTIME MAPPINGS
  /usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -I$3 -Ibench -Itests/gpu -I$2 \
    -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=$4 bench/gemm_mappings.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas -o $S/bin/$1 > $S/$1.log 2>&1
}
build base $S/base runtime 28 & build onebar $S/onebar runtime 28 & wait
build l2p $S/base $S/rt256B 28 & build l2p64 $S/base $S/rt64B 28 & wait
build l2none $S/base $S/rtNONE 28 & build pf $S/pf runtime 28 & wait
build sk34 $S/sk runtime 34
tar cf - $S/bin/base $S/bin/onebar $S/bin/l2p | xz -T2 > build-gpu/s52.tar.xz
tar cf - $S/bin/base $S/bin/l2p64 $S/bin/l2none $S/bin/pf $S/bin/sk34 | xz -T2 > build-gpu/s52b.tar.xz
