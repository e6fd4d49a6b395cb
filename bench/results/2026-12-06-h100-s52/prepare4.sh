#!/usr/bin/env bash
# Session 52: build-gpu/s52c.tar.xz for r4.sh: examples/add_gemm with the consumers going straight from the K loop into
# the L loop (no wgmma drain between them; rings.cpp chain_successor_undrained) as libadd_gemm.so ("new"; "old" is
# session 51's build-gpu/s51b new/, carried beside), and tests/gpu/add_gemm_correctness.cu over new + session 51's two
# two-team mappings (add_gemm_alt.loom.part; alternate(2) keeps its drain) for correctness and the sanitizers.
set -eu
S=build-gpu/s52c
L=${LOOM:-build/loom}
rm -rf $S; mkdir -p $S/gen/new $S/gen/ext $S/bin
$L compile examples/add_gemm/add_gemm.loom -o $S/gen/new
cat examples/add_gemm/add_gemm.loom bench/results/2026-12-06-h100-s51/add_gemm_alt.loom.part > $S/gen/ext/add_gemm.loom
$L run --cpu $S/gen/ext/add_gemm.loom --size M=129,N=257,K=65,L=70 | tail -1
$L compile $S/gen/ext/add_gemm.loom -o $S/gen/ext
. bench/results/2026-12-05-h100-s46/so.sh
so $S/new add_gemm $S/gen/new &
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -I$S/gen/ext \
  tests/gpu/add_gemm_correctness.cu $S/gen/ext/add_gemm.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas -o $S/bin/add_gemm_e2e
wait
grep -h "spill" $S/*/lib/add_gemm.log | sort | uniq -c | sort -rn | head -5
tar cf - $S/bin $S/new/lib | xz -T2 > build-gpu/s52c.tar.xz
ls -la build-gpu/s52c.tar.xz
