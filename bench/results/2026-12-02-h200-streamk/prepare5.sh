#!/usr/bin/env bash
# On the development machine: r5.sh's binaries into build-gpu/s29a: examples/add_gemm with its three new
# multicast candidates (new/, mappings 7-9) and as at the previous commit (old/, OLD_ADD_GEMM: git show
# HEAD:examples/add_gemm/add_gemm.loom), each as bench/fused_bench.py's library (lib/libag_new.so,
# lib/libag_old.so); ag_e2e (tests/gpu/add_gemm_correctness.cu on new/: every mapping by index).
set -eu
S=build-gpu/s29a
L=${LOOM:-build/loom}
OLD=${OLD_ADD_GEMM:?the previous examples/add_gemm/add_gemm.loom}
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p $S/lib
$L compile examples/add_gemm/add_gemm.loom -o $S/new/add_gemm
$L compile $OLD -o $S/old/add_gemm
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
for v in new old; do
  $NV -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime -I$S/$v/add_gemm $S/$v/add_gemm/add_gemm.cu \
    -o $S/lib/libag_$v.so -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda \
    > $S/lib/ag_$v.log 2>&1 && echo "ok libag_$v" || echo "FAIL libag_$v" &
done
$NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -I$S/new/add_gemm tests/gpu/add_gemm_correctness.cu \
  $S/new/add_gemm/add_gemm.cu -lcuda -lcublas -o $S/ag_e2e > $S/ag_e2e.log 2>&1 && echo "ok ag_e2e" || echo "FAIL ag_e2e" &
wait
