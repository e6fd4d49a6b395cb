#!/usr/bin/env bash
# gemm_residual with five when(fastest) candidates (residual_c6.loom: 128x64 K128, 64x128, 128x192,
# 192x128, 192x192; build-gpu/s25): every mapping by index checked and under the sanitizers, then
# timed by mapping over the listed shapes and the 30-shape sweep against cuBLAS with beta = 1.
set -u
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out"
b=build-gpu/s25
timeout 120 $b/gemm_residual_e2e > "$out/r2-e2e.log" 2>&1; echo "rc=$?" >> "$out/r2-e2e.log"
for tool in memcheck racecheck synccheck; do
  echo "== $tool 129x257x65 every mapping" >> "$out/r2-sanitizers.log"
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $b/gemm_residual_e2e --by-index 129x257x65 2>&1 | tail -3 >> "$out/r2-sanitizers.log"
done
OUT=$out LOOM_GEN_DIR=$b/gen timeout 250 bash bench/fused.sh --only gemm_residual --by-mapping --sweep 30 --sweep-cases gemm_residual > "$out/r2-fused.log" 2>&1; echo "rc=$?" >> "$out/r2-fused.log"
grep -E "correctness:|rc=" "$out/r2-e2e.log"; grep -E "==|SUMMARY|correctness" "$out/r2-sanitizers.log"; tail -6 "$out/r2-fused.log"
