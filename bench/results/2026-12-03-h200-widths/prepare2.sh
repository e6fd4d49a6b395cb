#!/usr/bin/env bash
# On the development machine: r3.sh's kernels into build-gpu/s34b, from the loom of commit 6b3a4a9 (padded swizzle
# rows, the 64-byte tail slice of the staged epilogue): the same widths on clusters of two blocks sharing B by TMA
# multicast (round 1's plain candidates lost to the committed multicast mappings on the mid-size shapes). candidates.py
# copies examples/gemm's 128 x 192 multicast(2) mapping as mappings 23-25 (128 x 224, 3 stages, staged epilogue;
# 128 x 224, 4 stages, direct epilogue; 128 x 160, 4 stages, staged) and examples/gemm_bias_act's (GELU) as 13-14
# (128 x 224, 3; 128 x 160, 4). gm (26 mappings), gemm_e2e, gba_e2e and lib/libgba.so as in prepare1.sh.
set -eu
S=${S:-build-gpu/s34b}
L=${LOOM:-build/loom}
H=bench/results/2026-12-03-h200-widths
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p $S/src $S/gen $S/lib
python3 $H/candidates.py examples/gemm/gemm.loom $S/src/gemm.loom 128x192mc:224:3 128x192mc:224:4 128x192mc:160:4
python3 $H/candidates.py examples/gemm_bias_act/gemm_bias_act.loom $S/src/gemm_bias_act.loom 128x192mc:224:3 128x192mc:160:4
$L compile examples/batched_gemm/batched_gemm.loom -o $S/gen/batched_gemm
$L compile $S/src/gemm.loom -o $S/gen/gemm
$L compile $S/src/gemm_bias_act.loom -o $S/gen/gemm_bias_act
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime"
$NV $F -Ibench -I$S/gen/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=26 bench/gemm_mappings.cu -lcuda -lcublas -o $S/gm > $S/gm.log 2>&1 && echo "ok gm" || echo "FAIL gm" &
$NV $F -Ibench -I$S/gen/gemm -I$S/gen/batched_gemm -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM tests/gpu/gemm_correctness.cu \
  $S/gen/gemm/gemm.cu $S/gen/batched_gemm/batched_gemm.cu -lcuda -o $S/gemm_e2e > $S/gemm_e2e.log 2>&1 && echo "ok gemm_e2e" || echo "FAIL gemm_e2e" &
wait
d=$S/gen/gemm_bias_act
$NV $F -DLOOM_ACT=2 -Itests/gpu -I$d tests/gpu/gemm_bias_act_correctness.cu $d/gemm_bias_act.cu -lcuda -o $S/gba_e2e > $S/gba_e2e.log 2>&1 && echo "ok gba_e2e" || echo "FAIL gba_e2e" &
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
$NV -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime -I$d $d/gemm_bias_act.cu -o $S/lib/libgba.so \
  -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/gba.log 2>&1 && echo "ok libgba" || echo "FAIL libgba" &
wait
