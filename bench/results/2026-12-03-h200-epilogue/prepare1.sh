#!/usr/bin/env bash
# On the development machine: r1.sh's binaries into build-gpu/s35a. examples/gemm and
# examples/gemm_bias_act (identity and GELU, tests/gpu/e2e/gemm_bias_act.sh --gen) compiled by this
# session's loom into shared libraries that export only loom_*; the GELU library also with three other
# forms of runtime.cuh's gelu_tanh (gelu_runtime.py: rcp, newton, tanh; the same generated .cu against
# a runtime copy); bench/micro/gelu_forms.cu.
set -eu
S=${S:-build-gpu/s35a}
L=${LOOM:-build/loom}
H=bench/results/2026-12-03-h200-epilogue
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p $S/gen $S/lib
$L compile examples/gemm/gemm.loom -o $S/gen/gemm
for a in identity gelu; do LOOM=$L bash tests/gpu/e2e/gemm_bias_act.sh --gen $a $S/gen > /dev/null; done
for f in rcp newton tanh; do python3 $H/gelu_runtime.py $f $S/rt_$f; done
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
so() {  # so NAME GENDIR RUNTIME
  $NV -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -I$3 -I$2 $2/*.cu -o $S/lib/lib$1.so \
    -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/$1.log 2>&1 \
    && echo "ok $1" || echo "FAIL $1"
}
so gemm $S/gen/gemm runtime &
so gba_identity $S/gen/gemm_bias_act_identity runtime &
wait
so gba_gelu $S/gen/gemm_bias_act_gelu runtime &
so gba_gelu_rcp $S/gen/gemm_bias_act_gelu $S/rt_rcp &
wait
so gba_gelu_newton $S/gen/gemm_bias_act_gelu $S/rt_newton &
so gba_gelu_tanh $S/gen/gemm_bias_act_gelu $S/rt_tanh &
wait
$NV -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime bench/micro/gelu_forms.cu -o $S/gelu_forms && echo "ok gelu_forms"
du -sh $S
