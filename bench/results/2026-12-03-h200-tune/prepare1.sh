#!/usr/bin/env bash
# On the development machine: r1.sh's binaries into build-gpu/s33a, from the committed examples and the
# loom of this commit (loom_<entry>_tune, runtime/loom/tune.h): gc (tests/gpu/gemm_correctness.cu over
# libloom_gemm.so + libloom_batched_gemm.so), gm / gmb (bench/gemm_mappings.cu on examples/gemm's 23 and
# examples/batched_gemm's 14 mappings) and, as bench/fused.sh builds them, lib/libgemm_bias_act_gelu.so and
# lib/libadd_gemm.so for bench/fused_bench.py --tune.
set -eu
S=${S:-build-gpu/s33a}
L=${LOOM:-build/loom}
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p $S/gen $S/lib
$L compile examples/gemm/gemm.loom -o $S/gen/gemm
$L compile examples/batched_gemm/batched_gemm.loom -o $S/gen/batched_gemm
LOOM=$L bash tests/gpu/e2e/gemm_bias_act.sh --gen gelu $S/gen > /dev/null
$L compile examples/add_gemm/add_gemm.loom -o $S/gen/add_gemm
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime"
SO=(-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime)
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
lib() {  # lib NAME DIR: $S/lib/libNAME.so from the generated .cu in DIR
  local cu; cu=$(ls $2/*.cu | head -1)
  $NV "${SO[@]}" -I$2 $cu -o $S/lib/lib$1.so -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic \
    -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/$1.log 2>&1 && echo "ok lib$1" || echo "FAIL lib$1"
}
lib loom_gemm $S/gen/gemm &
lib loom_batched_gemm $S/gen/batched_gemm &
wait
$NV $F -Ibench -I$S/gen/gemm -I$S/gen/batched_gemm -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM tests/gpu/gemm_correctness.cu \
  -L$S/lib -lloom_gemm -lloom_batched_gemm -Xlinker -rpath,'$ORIGIN/lib' -L/usr/local/cuda/lib64/stubs -lcuda -o $S/gc > $S/gc.log 2>&1 \
  && echo "ok gc" || echo "FAIL gc" &
$NV $F -Ibench -I$S/gen/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=23 bench/gemm_mappings.cu -lcuda -lcublas -o $S/gm > $S/gm.log 2>&1 \
  && echo "ok gm" || echo "FAIL gm" &
wait
$NV $F -Ibench -I$S/gen/batched_gemm -DLOOM_HAVE_BATCHED_GEMM -DLOOM_MAPPINGS=14 bench/gemm_mappings.cu -lcuda -lcublas -o $S/gmb > $S/gmb.log 2>&1 \
  && echo "ok gmb" || echo "FAIL gmb" &
lib gemm_bias_act_gelu $S/gen/gemm_bias_act_gelu &
wait
lib add_gemm $S/gen/add_gemm
