#!/usr/bin/env bash
# Round 5 (device): relu_gemm with six of examples/gemm's other tile shapes as when(fastest)
# candidates (build-gpu/s24/gen5: c7.loom in this folder): every mapping checked by index, and timed
# by mapping over the listed shapes and a 30-shape sweep against ReLU + cuBLAS; then the committed
# relu_gemm's end-to-end test (build-gpu/gen) with its sanitizers.
set -u
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out" /tmp/w
b=build-gpu/s24
timeout 150 $b/relu_gemm_e2e_c7 --bench > "$out/r5-c7-e2e.log" 2>&1; echo "rc=$?" >> "$out/r5-c7-e2e.log"
OUT=$out/c7 LOOM_GEN_DIR=$b/gen5 timeout 300 bash bench/fused.sh --only relu_gemm --by-mapping --sweep 30 --sweep-cases relu_gemm > "$out/r5-fused.log" 2>&1; echo "rc=$?" >> "$out/r5-fused.log"
timeout 120 bash tests/gpu/e2e/relu_gemm.sh /tmp/w > "$out/r5-relu-gemm-e2e.log" 2>&1; echo "rc=$?" >> "$out/r5-relu-gemm-e2e.log"
ls -la "$out" "$out/c7"
