#!/usr/bin/env bash
# On the development machine: r1.sh's generated sources into build-gpu/s36/gen (carried to the device):
# examples/gemm_bias_act with GELU and with gelu_fast (tests/gpu/e2e/gemm_bias_act.sh --gen), after
# bench/results/2026-12-04-h200-bymap/prepare.sh (identity, gemm, the mapping labels).
set -eu
S=build-gpu/s36
L=${LOOM:-build/loom}
bash bench/results/2026-12-04-h200-bymap/prepare.sh
LOOM=$L bash tests/gpu/e2e/gemm_bias_act.sh --gen gelu_fast $S/gen > /dev/null
