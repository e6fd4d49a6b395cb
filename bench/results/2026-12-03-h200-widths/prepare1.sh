#!/usr/bin/env bash
# On the development machine: r1.sh's kernels into build-gpu/s34a, from the loom of this session's padded
# swizzle rows (ir::padded_row: a block width V that is not a multiple of 64 lays B out in whole 64-column
# slices; the staged epilogue stores the last 32 columns from a 64-byte-swizzled slice). candidates.py appends
# to examples/gemm mappings 23-27 (128 x 224, 3 stages; 128 x 160, 4; 128 x 96, 6; 192 x 160, 3; 64 x 160, 6)
# and to examples/gemm_bias_act (GELU) mappings 13-15 (128 x 224, 3; 128 x 160, 4; 192 x 160, 3). gm
# (bench/gemm_mappings.cu, 28 mappings), gemm_e2e (tests/gpu/gemm_correctness.cu), gba_e2e
# (gemm_bias_act_correctness, GELU) and lib/libgba.so (bench/fused_bench.py's library).
set -eu
S=${S:-build-gpu/s34a}
L=${LOOM:-build/loom}
H=bench/results/2026-12-03-h200-widths
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p $S/src $S/gen $S/lib
# prepare2.sh runs this script with other candidates (GEMM_SPECS, GBA_SPECS, MAPPINGS: examples/gemm's count after them).
python3 $H/candidates.py examples/gemm/gemm.loom $S/src/gemm.loom ${GEMM_SPECS:-128x256:224:3 128x192:160:4 128x128:96:6 192x128:160:3 64x128:160:6}
python3 $H/candidates.py examples/gemm_bias_act/gemm_bias_act.loom $S/src/gemm_bias_act.loom ${GBA_SPECS:-128x256:224:3 128x192:160:4 192x128:160:3}
$L compile examples/batched_gemm/batched_gemm.loom -o $S/gen/batched_gemm
$L compile $S/src/gemm.loom -o $S/gen/gemm
$L compile $S/src/gemm_bias_act.loom -o $S/gen/gemm_bias_act
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime"
$NV $F -Ibench -I$S/gen/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=${MAPPINGS:-28} bench/gemm_mappings.cu -lcuda -lcublas -o $S/gm > $S/gm.log 2>&1 && echo "ok gm" || echo "FAIL gm" &
$NV $F -Ibench -I$S/gen/gemm -I$S/gen/batched_gemm -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM tests/gpu/gemm_correctness.cu \
  $S/gen/gemm/gemm.cu $S/gen/batched_gemm/batched_gemm.cu -lcuda -o $S/gemm_e2e > $S/gemm_e2e.log 2>&1 && echo "ok gemm_e2e" || echo "FAIL gemm_e2e" &
wait
d=$S/gen/gemm_bias_act
$NV $F -DLOOM_ACT=2 -Itests/gpu -I$d tests/gpu/gemm_bias_act_correctness.cu $d/gemm_bias_act.cu -lcuda -o $S/gba_e2e > $S/gba_e2e.log 2>&1 && echo "ok gba_e2e" || echo "FAIL gba_e2e" &
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
$NV -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime -I$d $d/gemm_bias_act.cu -o $S/lib/libgba.so \
  -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/gba.log 2>&1 && echo "ok libgba" || echo "FAIL libgba" &
wait
