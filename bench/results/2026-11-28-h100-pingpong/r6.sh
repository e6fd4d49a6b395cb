#!/usr/bin/env bash
# Session 21 round 6: ncu of examples/gemm's m0 (128 x 256, 3-deep ring) and m6 (128 x 192, 4-deep) at
# 8192^3, where m6 runs 10-15% faster in every timed round (bench/results/2026-11-28-cpu-cost-model-ring-bound.md).
set -u
cd "$(dirname "$0")/../../.."
B=build-gpu/s21; mkdir -p "$OUT"; t0=$(date +%s)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for m in 0 6; do
  timeout 200 $NCU --kernel-name-base mangled --kernel-name "regex:8mapping${m}11gemm_kernel" --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy \
    --metrics lts__t_sector_hit_rate.pct,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active \
    $B/gm_all --out /tmp/x$m.md --shape 8192x8192x8192 > $OUT/ncu-m$m.txt 2>&1; echo "ncu m$m rc=$? $(( $(date +%s) - t0 )) s"
done
for m in 0 6; do echo "== m$m"; grep -E "Duration|DRAM Throughput|L2 Hit|Memory Throughput|Compute \(SM\)|gmma|dram__bytes|lts__t_sector_hit|Stall|Warp Cycles Per Issued|Registers Per|Achieved Occ" $OUT/ncu-m$m.txt | head -30; done
