#!/usr/bin/env bash
# On the development machine, with fit/cost-model-terms.patch applied (git apply; not committed): r3.sh's binaries into build-gpu/s32c, from the examples with the cost model's
# clock under load and ring refill terms (CostModel::full_load_clock_percent, ring_refill_cycles): gm
# (bench/gemm_mappings.cu, examples/gemm's 23 mappings) and, as bench/fused.sh builds them, lib/libgemm_bias_act_gelu.so
# (13 mappings) and lib/libadd_gemm.so.
set -eu
S=build-gpu/s32c
L=${LOOM:-build/loom}
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p $S/gen $S/lib
$L compile examples/gemm/gemm.loom -o $S/gen/gemm
LOOM=$L bash tests/gpu/e2e/gemm_bias_act.sh --gen gelu $S/gen > /dev/null
$L compile examples/add_gemm/add_gemm.loom -o $S/gen/add_gemm
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime"
SO=(-std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime)
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
$NV $F -Ibench -I$S/gen/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=23 bench/gemm_mappings.cu -lcuda -lcublas -o $S/gm > $S/gm.log 2>&1 && echo "ok gm" || echo "FAIL gm" &
for c in gemm_bias_act_gelu add_gemm; do
  cu=$(ls $S/gen/$c/*.cu | head -1)
  $NV "${SO[@]}" -I$S/gen/$c $cu -o $S/lib/lib$c.so -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic \
    -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/$c.log 2>&1 && echo "ok lib$c" || echo "FAIL lib$c" &
done
wait
