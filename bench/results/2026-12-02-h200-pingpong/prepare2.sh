#!/usr/bin/env bash
# On the development machine: what r2.sh runs, into build-gpu/s28b, from the committed
# examples/gemm_bias_act (13 mappings: the 12 of before and the 128 x 128 ping-pong candidate) and
# this commit's cost model (the epilogue's element-wise work):
#   gen/gemm_bias_act_<act>/ (tests/gpu/e2e/gemm_bias_act.sh --gen), bins/gemm_bias_act_<act> (that
#   script's nvcc command), lib/libgba_<act>.so (as bench/fused.sh builds them); gen/gemm_reduce_registers
#   (examples/gemm_reduce, whose ping-pong candidate's estimate changed too) -> lib/libgr.so.
set -eu
S=build-gpu/s28b
L=${LOOM:-build/loom}
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p $S/gen $S/bins $S/lib
SO=(-std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime)
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
lib() {  # lib NAME DIR ENTRY
  $NV "${SO[@]}" -I$2 $2/$3.cu -o $S/lib/lib$1.so -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic \
    -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/$1.log 2>&1 && echo "ok $1" || echo "FAIL $1"
}
id=0
for a in identity relu gelu silu; do
  LOOM=$L bash tests/gpu/e2e/gemm_bias_act.sh --gen $a $S/gen > /dev/null
  d=$S/gen/gemm_bias_act_$a
  $NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -DLOOM_ACT=$id -Iruntime -Itests/gpu -I$d \
    tests/gpu/gemm_bias_act_correctness.cu $d/gemm_bias_act.cu -lcuda -o $S/bins/gemm_bias_act_$a > $S/bins/$a.log 2>&1 &&
    echo "ok e2e $a" || echo "FAIL e2e $a" &
  lib gba_$a $d gemm_bias_act &
  wait
  id=$((id + 1))
done
$L compile examples/gemm_reduce/gemm_reduce.loom -o $S/gen/gemm_reduce_registers
lib gr $S/gen/gemm_reduce_registers gemm_reduce
