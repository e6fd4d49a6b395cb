#!/usr/bin/env bash
# Round 3 (device): the compiler's packed relu (n0: the committed mapping; n1: with pingpong) against
# the kernel before it (v0) and round 2's hand edit (pk), alternating, two rounds; sanitizers on n0.
set -u
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out"
b=build-gpu/s24
for r in 1 2; do
  for v in "" _n0 _n1 _pk; do
    echo "=== round $r relu_gemm_e2e$v" >> "$out/r3-e2e.log"
    timeout 100 $b/relu_gemm_e2e$v --bench >> "$out/r3-e2e.log" 2>&1; echo "rc=$?" >> "$out/r3-e2e.log"
  done
done
for v in _n0 _n1; do
  for tool in memcheck racecheck synccheck; do
    echo "== $v $tool 129x257x65" >> "$out/r3-sanitizers.log"
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $b/relu_gemm_e2e$v --only 129x257x65 2>&1 | tail -4 >> "$out/r3-sanitizers.log"
  done
  echo "== $v memcheck 128x256x64" >> "$out/r3-sanitizers.log"
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 20 $b/relu_gemm_e2e$v --only 128x256x64 2>&1 | tail -4 >> "$out/r3-sanitizers.log"
done
for v in "" _n0 _n1; do
  timeout 60 ncu --section SpeedOfLight --section InstructionStats -k regex:relu_gemm -c 1 $b/relu_gemm_e2e$v --only 4096x4096x4096 > "$out/r3-ncu$v.txt" 2>&1
done
ls -la "$out"
