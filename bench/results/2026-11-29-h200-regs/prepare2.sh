#!/usr/bin/env bash
# On the development machine, for r2.sh: the tensor-expression examples' CUDA (build/loom at commit
# 5587ede) into build-gpu/s27/gen/tx, and tests/gpu/e2e/tx.sh's binaries built beforehand
# (TX_BUILD_ONLY=1) into build-gpu/s27/txw/tx.
set -eu
G=build-gpu/s27/gen/tx
for ex in gemm batched_gemm gemm_bias_relu add_gemm mlp relu_gemm; do
  rm -rf $G/$ex; build/loom compile examples/tx/$ex.tx -o $G/$ex
done
rm -rf $G/examples_gemm; build/loom compile examples/gemm/gemm.loom -o $G/examples_gemm
LOOM_GEN_DIR=build-gpu/s27/gen TX_BUILD_ONLY=1 bash tests/gpu/e2e/tx.sh build-gpu/s27/txw
