#!/usr/bin/env bash
# Session 51: build-gpu/s51b.tar.xz for r2.sh:
#  - old: examples/add_gemm as the loom of HEAD (837a49d) generates it (the producer waits once per tile for the
#    consumers to finish the K loop before it loads the L loop's first slots), generated beforehand into $OLD;
#  - new: examples/add_gemm by this tree's loom (the wait gone: the ring chain's release barrier orders the refills);
#  - ext: new + add_gemm_alt.loom.part's two two-team mappings (alternate(2) over the K and L loops' one ring);
#  each as libadd_gemm.so for bench/fused_bench.py; tests/gpu/add_gemm_correctness.cu against ext (the e2e binary).
set -eu
S=build-gpu/s51b
H=bench/results/2026-12-06-h100-s51
L=${LOOM:-build/loom}
OLD=${OLD:-/tmp/ag/old}
rm -rf $S; mkdir -p $S/gen/old $S/gen/new $S/gen/ext $S/bin
cp $OLD/add_gemm.cu $OLD/add_gemm.h $S/gen/old/
$L compile examples/add_gemm/add_gemm.loom -o $S/gen/new
cat examples/add_gemm/add_gemm.loom $H/add_gemm_alt.loom.part > $S/gen/ext/add_gemm.loom
$L run --cpu $S/gen/ext/add_gemm.loom --size M=129,N=257,K=65,L=70 | tail -1
$L compile $S/gen/ext/add_gemm.loom -o $S/gen/ext
. bench/results/2026-12-05-h100-s46/so.sh
for v in old new ext; do so $S/$v add_gemm $S/gen/$v & done
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -I$S/gen/ext \
  tests/gpu/add_gemm_correctness.cu $S/gen/ext/add_gemm.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas -o $S/bin/add_gemm_e2e
wait
grep -h "spill" $S/*/lib/add_gemm.log | sort | uniq -c | sort -rn | head -5
tar cf - $S/bin $S/old/lib $S/new/lib $S/ext/lib | xz -T2 > build-gpu/s51b.tar.xz
ls -la build-gpu/s51b.tar.xz
