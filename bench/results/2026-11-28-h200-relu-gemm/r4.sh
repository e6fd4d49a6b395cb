#!/usr/bin/env bash
# Round 4 (device): the committed form (this change) through the usual scripts: relu_gemm's end-to-end
# test with sanitizers, the fused bench (relu_gemm vs ReLU + cuBLAS), the tensor-expression bench and
# its end-to-end test (relu_gemm.tx runs the same lowering). Carry build-gpu/gen (tests/gpu/prepare.sh).
set -u
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out"
[ -d build-gpu/gen/tx/examples_gemm ] || cp -r build-gpu/gen/gemm build-gpu/gen/tx/examples_gemm
mkdir -p /tmp/w  # (added after the run: without it the first step failed to link, see r4-relu-gemm-e2e.log)
timeout 200 bash tests/gpu/e2e/relu_gemm.sh /tmp/w > "$out/r4-relu-gemm-e2e.log" 2>&1; echo "rc=$?" >> "$out/r4-relu-gemm-e2e.log"
OUT=$out timeout 150 bash bench/fused.sh --only relu_gemm > "$out/r4-fused.log" 2>&1; echo "rc=$?" >> "$out/r4-fused.log"
OUT=$out timeout 400 bash bench/tx.sh > "$out/r4-tx.log" 2>&1; echo "rc=$?" >> "$out/r4-tx.log"
timeout 200 bash tests/gpu/e2e/tx.sh /tmp/w > "$out/r4-tx-e2e.log" 2>&1; echo "rc=$?" >> "$out/r4-tx-e2e.log"
ls -la "$out"
