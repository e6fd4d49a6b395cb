#!/usr/bin/env bash
# Round 9 (device): the final state (examples/relu_gemm with 10 mappings, relu_gemm.tx with its
# split-K candidates): relu_gemm's end-to-end test (every mapping by index, sanitizers on every
# mapping), the tensor-expression end-to-end test and bench, and the fused bench's relu_gemm rows.
# Carry build-gpu/gen (bash tests/gpu/prepare.sh; gen/tx/examples_gemm = a copy of gen/gemm).
set -u
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out" /tmp/w
timeout 200 bash tests/gpu/e2e/relu_gemm.sh /tmp/w > "$out/r9-relu-gemm-e2e.log" 2>&1; echo "rc=$?" >> "$out/r9-relu-gemm-e2e.log"
timeout 200 bash tests/gpu/e2e/tx.sh /tmp/w > "$out/r9-tx-e2e.log" 2>&1; echo "rc=$?" >> "$out/r9-tx-e2e.log"
OUT=$out timeout 200 bash bench/tx.sh > "$out/r9-tx.log" 2>&1; echo "rc=$?" >> "$out/r9-tx.log"
OUT=$out timeout 120 bash bench/fused.sh --only relu_gemm > "$out/r9-fused.log" 2>&1; echo "rc=$?" >> "$out/r9-fused.log"
tail -2 "$out/r9-relu-gemm-e2e.log" "$out/r9-tx-e2e.log"; grep -E "relu_gemm vs|relu_gemm, listed|rc=" "$out/r9-tx.log" "$out/r9-fused.log"
