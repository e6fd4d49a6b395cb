#!/usr/bin/env bash
set -u
GEN=build-gpu/mcx
[ -x /tmp/map/.bin/gemm ] || { mkdir -p /tmp/map/.bin; /usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I$GEN/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=11 bench/gemm_mappings.cu -lcuda -lcublas -o /tmp/map/.bin/gemm || exit 1; }
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 400 $NCU --kernel-name-base demangled -k regex:"mapping(0|4)::gemm_kernel" --launch-count 2 \
  --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
  /tmp/map/.bin/gemm --out /tmp/x.md --shape 4096x4096x4096 --check-only > $OUT/ncu.txt 2>&1
echo rc=$?
grep -E "gemm_kernel|Duration|Compute \(SM\) Throughput|L2 Cache Throughput|DRAM Throughput|Memory Throughput|Stall|Warp Cycles Per Issued|Grid Size|Cluster|Achieved Occupancy|Waves" $OUT/ncu.txt | head -80
