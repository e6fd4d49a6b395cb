#!/usr/bin/env bash
# Round 7 (device): split-K with an operand prologue. c10.loom = examples/relu_gemm (7 mappings) plus
# 128x128 splitk(2), 128x128 splitk(4), 128x64 (K step 128) splitk(4) (build-gpu/s24/gen7): every
# mapping by index checked and under the sanitizers, then timed by mapping (listed + 30-shape sweep).
set -u
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out"
b=build-gpu/s24
timeout 150 $b/relu_gemm_e2e_c10 --bench > "$out/r7-c10-e2e.log" 2>&1; echo "rc=$?" >> "$out/r7-c10-e2e.log"
for tool in memcheck racecheck synccheck; do
  echo "== $tool 129x257x65 every mapping" >> "$out/r7-sanitizers.log"
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $b/relu_gemm_e2e_c10 --by-index 129x257x65 2>&1 | tail -3 >> "$out/r7-sanitizers.log"
done
echo "== memcheck 300x200x1000 every mapping" >> "$out/r7-sanitizers.log"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 20 $b/relu_gemm_e2e_c10 --by-index 300x200x1000 2>&1 | tail -3 >> "$out/r7-sanitizers.log"
OUT=$out/c10 LOOM_GEN_DIR=$b/gen7 timeout 300 bash bench/fused.sh --only relu_gemm --by-mapping --sweep 30 --sweep-cases relu_gemm > "$out/r7-fused.log" 2>&1; echo "rc=$?" >> "$out/r7-fused.log"
tail -4 "$out/r7-fused.log"; cat "$out/r7-sanitizers.log" | grep -E "==|SUMMARY|PASS|FAIL"
