#!/usr/bin/env bash
# On the development machine: r5.sh's kernels into build-gpu/s28d.
#   new/: examples/gemm, examples/batched_gemm and examples/gemm_bias_act (GELU) as committed after this
#         change (the 128 x 256 and 192 x 192 multicast mappings 4 stages deep, their epilogue staged in
#         parts); old/: examples/gemm as at the previous commit (git show HEAD~N:examples/gemm/gemm.loom).
#   gm_new, gm_old (bench/gemm_mappings.cu), gemm_e2e (tests/gpu/e2e/gemm.sh's nvcc command on new/),
#   gba_e2e (gemm_bias_act_correctness, GELU) and lib/libgba.so.
set -eu
S=build-gpu/s28d
L=${LOOM:-build/loom}
OLD=${OLD_GEMM:?the previous examples/gemm/gemm.loom}
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p $S/new $S/old $S/lib
$L compile examples/gemm/gemm.loom -o $S/new/gemm
$L compile examples/batched_gemm/batched_gemm.loom -o $S/new/batched_gemm
LOOM=$L bash tests/gpu/e2e/gemm_bias_act.sh --gen gelu $S/new > /dev/null
$L compile $OLD -o $S/old/gemm
gm() {  # gm NAME DIR
  $NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I$2 -DLOOM_HAVE_GEMM \
    -DLOOM_MAPPINGS=15 bench/gemm_mappings.cu -lcuda -lcublas -o $S/$1 > $S/$1.log 2>&1 && echo "ok $1" || echo "FAIL $1"
}
gm gm_new $S/new/gemm & gm gm_old $S/old/gemm & wait
$NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I$S/new/gemm -I$S/new/batched_gemm \
  -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM tests/gpu/gemm_correctness.cu $S/new/gemm/gemm.cu $S/new/batched_gemm/batched_gemm.cu \
  -lcuda -o $S/gemm_e2e > $S/gemm_e2e.log 2>&1 && echo "ok gemm_e2e" || echo "FAIL gemm_e2e" &
d=$S/new/gemm_bias_act_gelu
$NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -DLOOM_ACT=2 -Iruntime -Itests/gpu -I$d \
  tests/gpu/gemm_bias_act_correctness.cu $d/gemm_bias_act.cu -lcuda -o $S/gba_e2e > $S/gba_e2e.log 2>&1 && echo "ok gba_e2e" || echo "FAIL gba_e2e" &
wait
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
$NV -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime -I$d $d/gemm_bias_act.cu -o $S/lib/libgba.so \
  -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/gba.log 2>&1 && echo "ok libgba" || echo "FAIL libgba"
