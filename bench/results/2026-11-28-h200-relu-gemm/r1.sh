#!/usr/bin/env bash
# Round 1 (device): the fused examples' current standing on this device, and where relu_gemm's time
# goes against loom's GEMM at 4096^3. Carry build-gpu/gen (bash tests/gpu/prepare.sh) and build-gpu/s24
# (relu_gemm_e2e and gemm_bench, prebuilt with nvcc as this folder's README says).
set -u
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out"
b=build-gpu/s24
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > "$out/device.txt" 2>&1
# 1. relu_gemm correctness + its own bench (ReLU kernel + cuBLAS vs loom)
timeout 120 $b/relu_gemm_e2e --bench > "$out/r1-relu-gemm-e2e.log" 2>&1; echo "e2e rc=$?" >> "$out/r1-relu-gemm-e2e.log"
# 2. every fused case at the listed shapes (fresh H200 table)
OUT=$out timeout 330 bash bench/fused.sh > "$out/r1-fused.log" 2>&1; echo "fused rc=$?" >> "$out/r1-fused.log"
# 3. ncu: relu_gemm vs gemm at 4096^3, one launch each
timeout 60 ncu --set full -k regex:relu_gemm -c 1 $b/relu_gemm_e2e --only 4096x4096x4096 > "$out/r1-ncu-relu-gemm.txt" 2>&1
timeout 60 ncu --set full --profile-from-start off -k regex:gemm_kernel -c 1 $b/gemm_bench --profile 4096x4096x4096 > "$out/r1-ncu-gemm.txt" 2>&1
ls -la "$out"
