#!/usr/bin/env bash
# Round 2 (device): relu_gemm with the two compute warpgroups taking turns on the tensor cores
# (`pingpong`, pp) and pp with the relu on packed pairs (pk, a hand edit of pp's generated .cu),
# against the committed kernel (v0), alternating; loom's GEMM and cuBLAS on the same shapes.
set -u
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out"
b=build-gpu/s24
for r in 1 2; do
  for v in "" _pp _pk; do
    echo "=== round $r relu_gemm_e2e$v" >> "$out/r2-e2e.log"
    timeout 100 $b/relu_gemm_e2e$v --bench >> "$out/r2-e2e.log" 2>&1; echo "rc=$?" >> "$out/r2-e2e.log"
  done
done
timeout 120 $b/gemm_bench --out "$out/r2-gemm-table.md" > "$out/r2-gemm-table.log" 2>&1
for v in "" _pp _pk; do
  timeout 60 ncu --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section InstructionStats \
    -k regex:relu_gemm -c 1 $b/relu_gemm_e2e$v --only 4096x4096x4096 > "$out/r2-ncu$v.txt" 2>&1
done
cuobjdump -sass $b/relu_gemm_e2e | grep -cE "HMNMX2" > "$out/r2-sass-counts.txt" 2>&1
for v in "" _pp _pk; do echo "relu_gemm_e2e$v HMNMX2 $(cuobjdump -sass $b/relu_gemm_e2e$v | grep -c HMNMX2) PRMT $(cuobjdump -sass $b/relu_gemm_e2e$v | grep -c PRMT) total $(cuobjdump -sass $b/relu_gemm_e2e$v | grep -cE '^\s+/\*[0-9a-f]{4}\*/')"; done >> "$out/r2-sass-counts.txt"
ls -la "$out"
