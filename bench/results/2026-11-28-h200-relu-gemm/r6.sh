#!/usr/bin/env bash
# Round 6 (device): examples/relu_gemm as committed with its six candidates (build-gpu/gen/relu_gemm):
# tests/gpu/e2e/relu_gemm.sh (every shape, every mapping by index, the bench, and the sanitizers on
# every mapping by index at 129x257x65).
set -u
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out" /tmp/w
timeout 500 bash tests/gpu/e2e/relu_gemm.sh /tmp/w > "$out/r6-relu-gemm-e2e.log" 2>&1; echo "rc=$?" >> "$out/r6-relu-gemm-e2e.log"
tail -3 "$out/r6-relu-gemm-e2e.log"
