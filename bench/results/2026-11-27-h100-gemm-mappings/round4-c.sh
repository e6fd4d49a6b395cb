#!/usr/bin/env bash
# Session 16 round 4c: why large non-power-of-two shapes run slower than 8192^3 (gemm_bias_act and
# GEMM): every GEMM mapping timed on its own on a few shapes, then ncu (SpeedOfLight, L2 hit rate)
# on mapping 0 at 5264x7640x7224 and 8192^3.
set -u
cd "$(dirname "$0")/../.."
G=build-gpu/s16d; B=/tmp/s16d/bin; mkdir -p $B "$OUT"
NVCC=/usr/local/cuda/bin/nvcc
[ -x $B/map_gemm ] || "$NVCC" -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I$G/gen-new/gemm \
  -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=9 bench/gemm_mappings.cu -lcuda -lcublas -o $B/map_gemm
S="--shape 5264x7640x7224 --shape 7824x7424x6296 --shape 6192x5624x4888 --shape 8192x8192x8192 --shape 5312x2584x7744 --shape 3464x4040x1240"
timeout 200 $B/map_gemm --out "$OUT/oracle.md" $S --command "build-gpu/s16d/c.sh" > /tmp/s16d/oracle.log 2>&1; echo "oracle rc=$?"
grep "^| [0-9]" "$OUT/oracle.md" | awk -F'|' '{print $2, $3, $4, $14, $15, $16, $17}'
NCU=/usr/local/cuda/bin/ncu
for sh in 5264x7640x7224 8192x8192x8192; do
  timeout 150 $NCU --kernel-name regex:gemm_kernel --launch-count 1 --section SpeedOfLight \
    --metrics lts__t_sector_hit_rate.pct,dram__bytes_read.sum,lts__t_bytes.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed \
    $B/map_gemm --out /tmp/s16d/x.md --check-only --shape $sh --only $sh > "$OUT/ncu-$sh.txt" 2>&1
  echo "ncu $sh rc=$?"; grep -E "Duration|Throughput|hit_rate|bytes|SM Frequency|DRAM Frequency" "$OUT/ncu-$sh.txt" | head -20
done
