#!/usr/bin/env bash
# Session 50, device call 4 (carry build-gpu/s50c.tar.xz from prepare3.sh): ncu on one long-K sweep shape
# (6456x2912x5496) where the two-team 128 x 192 tiles lose: m21 (128 x 192, alternate(2), clusters of 2),
# m19 (the same without clusters) against m17 (128 x 192 on 2 x 4 clusters, the fastest there) and m9
# (128 x 256 on clusters of 2), one launch each, ncu's sections below.
set -u
mkdir -p $OUT
tar xJf build-gpu/s50c.tar.xz
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for m in 21 19 17 9; do
  timeout 120 $NCU --kernel-name-base mangled -k regex:mapping${m}20gemm -c 1 --section SpeedOfLight --section WarpStateStats \
    --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
    python3 bench/fused_bench.py --lib gemm_bias_act_gelu=build-gpu/s50c/alt/lib/libgemm_bias_act_gelu.so --by-mapping --reps 10 \
    --shapes 6456x2912x5496 --out $OUT/ncu-fused-m$m.md > $OUT/ncu-6456-m$m.txt 2>&1
  echo "m$m rc=$?"; grep -E "Duration|SM Throughput|Compute \(SM\)|Registers Per|Stall|Achieved Occupancy|L2 Cache Throughput|DRAM Throughput" $OUT/ncu-6456-m$m.txt | head -12
done
