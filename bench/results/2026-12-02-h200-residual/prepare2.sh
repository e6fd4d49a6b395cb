#!/usr/bin/env bash
# On the development machine: r2.sh's binaries into build-gpu/s30h: the committed examples/gemm_residual (four
# mappings) as bench/fused_bench.py's library and gr_e2e, and its C-from-global form
# (tests/gpu/e2e/residual_global.sed) as grg_e2e.
set -eu
S=build-gpu/s30h
L=${LOOM:-build/loom}
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p $S/lib $S/global
$L compile examples/gemm_residual/gemm_residual.loom -o $S/gen
sed -f tests/gpu/e2e/residual_global.sed examples/gemm_residual/gemm_residual.loom > $S/global/gemm_residual.loom
$L compile $S/global/gemm_residual.loom -o $S/global
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
$NV -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime -I$S/gen $S/gen/gemm_residual.cu -o $S/lib/libgr.so \
  -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/gr.log 2>&1 && echo "ok libgr" || echo "FAIL libgr" &
for v in gen global; do
  $NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -I$S/$v tests/gpu/gemm_residual_correctness.cu \
    $S/$v/gemm_residual.cu -lcuda -o $S/e2e_$v > $S/e2e_$v.log 2>&1 && echo "ok e2e_$v" || echo "FAIL e2e_$v" &
done
wait
