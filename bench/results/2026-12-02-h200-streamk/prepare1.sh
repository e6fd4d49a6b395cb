#!/usr/bin/env bash
# On the development machine: r1.sh's kernels into build-gpu/s29: examples/gemm and examples/gemm_bias_act
# (GELU) with the two stream-K candidates of candidates.sh appended (gemm: mappings 15, 16; gemm_bias_act:
# 13, 14). gm_sk (bench/gemm_mappings.cu), gemm_e2e (tests/gpu/gemm_correctness.cu), gba_e2e
# (gemm_bias_act_correctness) and lib/libgba.so (bench/fused_bench.py's library).
set -eu
S=build-gpu/s29
L=${LOOM:-build/loom}
H=bench/results/2026-12-02-h200-streamk
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p $S/src $S/gen $S/lib
bash $H/candidates.sh gemm examples/gemm/gemm.loom $S/src/gemm.loom
bash $H/candidates.sh gba examples/gemm_bias_act/gemm_bias_act.loom $S/src/gemm_bias_act.loom
$L compile examples/batched_gemm/batched_gemm.loom -o $S/gen/batched_gemm
$L compile $S/src/gemm.loom -o $S/gen/gemm
$L compile $S/src/gemm_bias_act.loom -o $S/gen/gemm_bias_act
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime"
$NV $F -Ibench -I$S/gen/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=17 bench/gemm_mappings.cu -lcuda -lcublas -o $S/gm_sk > $S/gm_sk.log 2>&1 && echo "ok gm_sk" || echo "FAIL gm_sk" &
$NV $F -Ibench -I$S/gen/gemm -I$S/gen/batched_gemm -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM tests/gpu/gemm_correctness.cu \
  $S/gen/gemm/gemm.cu $S/gen/batched_gemm/batched_gemm.cu -lcuda -o $S/gemm_e2e > $S/gemm_e2e.log 2>&1 && echo "ok gemm_e2e" || echo "FAIL gemm_e2e" &
d=$S/gen/gemm_bias_act
$NV $F -DLOOM_ACT=2 -Itests/gpu -I$d tests/gpu/gemm_bias_act_correctness.cu $d/gemm_bias_act.cu -lcuda -o $S/gba_e2e > $S/gba_e2e.log 2>&1 && echo "ok gba_e2e" || echo "FAIL gba_e2e" &
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
$NV -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime -I$d $d/gemm_bias_act.cu -o $S/lib/libgba.so \
  -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/gba.log 2>&1 && echo "ok libgba" || echo "FAIL libgba" &
wait
