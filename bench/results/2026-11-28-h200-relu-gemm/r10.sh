#!/usr/bin/env bash
# Round 10 (device): after relu_pair became one template for both 16-bit types: its bits against the
# scalar __hmax for every pattern (relu_pair_check.cu, built into build-gpu/s24), and relu_gemm's
# end-to-end test again (build-gpu/gen/relu_gemm regenerated).
set -u
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out" /tmp/w
build-gpu/s24/relu_pair_check > "$out/r10-relu-pair.log" 2>&1; echo "rc=$?" >> "$out/r10-relu-pair.log"
timeout 200 bash tests/gpu/e2e/relu_gemm.sh /tmp/w > "$out/r10-relu-gemm-e2e.log" 2>&1; echo "rc=$?" >> "$out/r10-relu-gemm-e2e.log"
cat "$out/r10-relu-pair.log"; grep -E "SUMMARY|correctness:|rc=" "$out/r10-relu-gemm-e2e.log"
