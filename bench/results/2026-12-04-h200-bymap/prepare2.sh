#!/usr/bin/env bash
# On the development machine, after prepare.sh: r2.sh's hoisted variants (hoist.py) of the generated
# gemm_bias_act (identity, GELU) into build-gpu/s36/gen/hoist_<act>.
set -eu
S=build-gpu/s36
H=bench/results/2026-12-04-h200-bymap
for a in identity gelu; do
  mkdir -p $S/gen/hoist_$a
  cp $S/gen/gemm_bias_act_$a/gemm_bias_act.h $S/gen/hoist_$a/
  python3 $H/hoist.py $S/gen/gemm_bias_act_$a/gemm_bias_act.cu $S/gen/hoist_$a/gemm_bias_act.cu
done
