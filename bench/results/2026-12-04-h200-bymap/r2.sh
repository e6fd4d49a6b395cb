#!/usr/bin/env bash
# Session 36, device call 2: the epilogue's bias loads hoisted before the K loop (hoist.py, an edit of
# the generated gemm_bias_act: prepare2.sh) against the generated kernels as they are, by mapping, on
# r1's shapes (bymap.py): identity, identity-hoist, gelu, gelu-hoist, and gemm.
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
so identity-hoist $S/gen/hoist_identity &
so gelu-hoist $S/gen/hoist_gelu &
wait
SHAPES=5312x2584x7744,6456x2912x5496,5096x6688x2936,2232x3288x3296,1880x5120x3840,7168x7760x328,1704x5336x928,3464x4040x1240,6408x696x7384,2832x3960x4848,4096x4096x4096,8192x8192x1024,4096x14336x4096
L=""
for n in gemm identity identity-hoist gelu gelu-hoist; do L="$L --lib $n=$S/lib/lib$n.so"; done
timeout 480 python3 $H/bymap.py $L --labels gemm=$S/gen/gemm.labels --labels identity=$S/gen/gba.labels --labels gelu=$S/gen/gba.labels \
  --labels identity-hoist=$S/gen/gba.labels --labels gelu-hoist=$S/gen/gba.labels \
  --shapes $SHAPES --out $OUT/r2-bymap.md --command "bash $H/r2.sh" > $OUT/r2-bymap.log 2>&1
echo "bymap rc=$?"; tail -14 $OUT/r2-bymap.log; grep -E "^- [a-zA-Z]" $OUT/r2-bymap.md
