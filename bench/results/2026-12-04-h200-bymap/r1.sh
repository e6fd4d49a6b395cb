#!/usr/bin/env bash
# Session 36, device call 1: builds prepare.sh's sources into shared libraries that export only loom_*
# (three nvcc in parallel), then bymap.py on 13 shapes: the sweep shapes of
# bench/results/2026-12-03-h200-epilogue/r1-diag.md where loom's identity epilogue ran 5-11% slower than
# loom's GEMM, others of that sweep, and three listed shapes.
set -u
S=build-gpu/s36
H=bench/results/2026-12-04-h200-bymap
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
mkdir -p $S/lib
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
so() {  # so NAME GENDIR
  nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime -I$2 $2/*.cu -o $S/lib/lib$1.so \
    -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/$1.log 2>&1 \
    && echo "ok $1" || { echo "FAIL $1"; cat $S/lib/$1.log; }
}
so gemm $S/gen/gemm &
so identity $S/gen/gemm_bias_act_identity &
so gelu $S/gen/gemm_bias_act_gelu &
wait
SHAPES=5312x2584x7744,6456x2912x5496,5096x6688x2936,2232x3288x3296,1880x5120x3840,7168x7760x328,1704x5336x928,3464x4040x1240,6408x696x7384,2832x3960x4848,4096x4096x4096,8192x8192x1024,4096x14336x4096
timeout 420 python3 $H/bymap.py --lib gemm=$S/lib/libgemm.so --lib identity=$S/lib/libidentity.so --lib gelu=$S/lib/libgelu.so \
  --labels gemm=$S/gen/gemm.labels --labels identity=$S/gen/gba.labels --labels gelu=$S/gen/gba.labels \
  --shapes $SHAPES --out $OUT/r1-bymap.md --command "bash $H/r1.sh" > $OUT/r1-bymap.log 2>&1
echo "bymap rc=$?"; tail -20 $OUT/r1-bymap.log; grep -E "^- [a-zA-Z]" $OUT/r1-bymap.md
