#!/usr/bin/env bash
# Session 47: the committed examples' fused libraries for r2's base run: gemm_bias_act gelu and gelu_fast,
# add_gemm, into build-gpu/s47b/base. This session built them with edfec90's loom (LOOM=...); with a later
# loom (the dispatcher's tie-break, 5fdeb82) the base has the same tie-break as the extended libraries.
set -eu
S=build-gpu/s47b/base
L=${LOOM:-build/loom}
rm -rf $S; mkdir -p $S/gen
for a in gelu gelu_fast; do LOOM=$L bash tests/gpu/e2e/gemm_bias_act.sh --gen $a $S/gen > /dev/null; done
$L compile examples/add_gemm/add_gemm.loom -o $S/gen/add_gemm
. bench/results/2026-12-05-h100-s46/so.sh
so $S gemm_bias_act_gelu $S/gen/gemm_bias_act_gelu &
so $S gemm_bias_act_gelu_fast $S/gen/gemm_bias_act_gelu_fast
wait
so $S add_gemm $S/gen/add_gemm
ls -la $S/lib
