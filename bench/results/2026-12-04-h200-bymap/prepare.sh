#!/usr/bin/env bash
# On the development machine: the generated sources r1.sh builds on the device, into build-gpu/s36/gen
# (carried to the device): examples/gemm, examples/gemm_bias_act with the identity and with GELU
# (tests/gpu/e2e/gemm_bias_act.sh --gen), and each program's mapping labels (labels.py).
set -eu
S=build-gpu/s36
H=bench/results/2026-12-04-h200-bymap
L=${LOOM:-build/loom}
mkdir -p $S/gen
$L compile examples/gemm/gemm.loom -o $S/gen/gemm
for a in identity gelu; do LOOM=$L bash tests/gpu/e2e/gemm_bias_act.sh --gen $a $S/gen > /dev/null; done
python3 $H/labels.py examples/gemm/gemm.loom > $S/gen/gemm.labels
python3 $H/labels.py examples/gemm_bias_act/gemm_bias_act.loom > $S/gen/gba.labels
