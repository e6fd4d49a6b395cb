#!/usr/bin/env bash
# On the development machine: r6.sh's kernels into build-gpu/s28e: examples/flash_attention_2 with this
# commit's loom (new/: its D > 128 mapping's epilogue, direct before, now staged half a tile at a time)
# and the previous commit's (old/: its golden file, tests/golden/codegen/flash_attention_2.cu at HEAD,
# which is that loom's output for the example), as libraries (as bench/attention.sh builds them) and the
# correctness harness of tests/gpu/e2e/attention.sh for new/.
set -eu
S=build-gpu/s28e
L=${LOOM:-build/loom}
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p $S/new $S/old $S/lib
$L compile examples/flash_attention_2/flash_attention_2.loom -o $S/new/fa2
mkdir -p $S/old/fa2
git show HEAD:tests/golden/codegen/flash_attention_2.cu > $S/old/fa2/mha.cu
git show HEAD:tests/golden/codegen/flash_attention_2.h > $S/old/fa2/mha.h
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
for v in new old; do
  $NV -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime -I$S/$v/fa2 $S/$v/fa2/mha.cu -o $S/lib/libfa2_$v.so \
    -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/$v.log 2>&1 && echo "ok lib $v" || echo "FAIL lib $v" &
done
$NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -I$S/new/fa2 \
  tests/gpu/attention_correctness.cu $S/new/fa2/mha.cu -lcuda -o $S/att_e2e > $S/att_e2e.log 2>&1 && echo "ok att_e2e" || echo "FAIL att_e2e" &
wait
