#!/usr/bin/env bash
# Session 18 experiment: gemm_bias_act GELU with the committed gelu_tanh (ex2 + fast division, 2 MUFU)
# vs a tanh.approx form (1 MUFU), same generated kernel, same machine.
set -u
cd "$(dirname "$0")/../.."
G=build-gpu/s18/gen/gemm_bias_act_gelu; W=/tmp/s18/w7; mkdir -p $W "$OUT"
NVCC=/usr/local/cuda/bin/nvcc
printf '{ global: loom_*; local: *; };\n' > $W/exports.map
for v in runtime build-gpu/s18/rt_tanh; do
  n=$(basename $v)
  $NVCC -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -I$v -I$G $G/gemm_bias_act.cu -o $W/lib$n.so \
    -Xlinker --version-script=$W/exports.map -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda &
done
wait
for r in 1 2; do for n in runtime rt_tanh; do
  PYTHONUNBUFFERED=1 timeout 200 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$W/lib$n.so --only gemm_bias_act_gelu --sweep 30 \
    --out $OUT/$n-$r.md --command "r7.sh $n" > $W/$n-$r.log 2>&1
  echo "$n round $r rc=$?"; grep -E "^- gemm_bias_act_gelu" $OUT/$n-$r.md
done; done
