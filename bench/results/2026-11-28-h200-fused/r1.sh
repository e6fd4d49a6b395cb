#!/usr/bin/env bash
# gemm_bias_act (GELU) and add_gemm over the listed shapes and the 30-shape sweep (seed 20261125),
# against cuBLASLt's fused GELU + bias epilogue and torch unfused; carry build-gpu/gen (tests/gpu/prepare.sh).
set -u
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out"
timeout 520 bash bench/fused.sh --only gemm_bias_act_gelu --only add_gemm --sweep 30 > "$out/r1-fused.log" 2>&1; echo "rc=$?" >> "$out/r1-fused.log"
tail -8 "$out/r1-fused.log"
