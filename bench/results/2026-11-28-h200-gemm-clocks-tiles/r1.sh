#!/usr/bin/env bash
# Session 22 round 1 (device): (a) clocks/power while GEMM mappings run back to back (probe.sh);
# (b) ncu: L2 -> SM traffic and tensor-pipe use of 64 x 128 tiles with and without multicast(2) and
# of cuBLAS at 600 x 1248 x 4736 (gemm_mc.loom of 2026-11-28-h100-gemm-long-k: m8 p6, m13 p8, m14 p6 mc2, m15 p8 mc2).
set -u
cd "$(dirname "$0")/../../.."
B=build-gpu/s22; mkdir -p "$OUT"
bash bench/results/2026-11-28-h200-gemm-clocks-tiles/probe.sh $B/probe > $OUT/probe-table.md 2>&1
cat $OUT/probe-table.md
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
MET=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,lts__t_bytes.sum,l1tex__m_xbar2l1tex_read_bytes.sum,dram__bytes_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,launch__grid_size,launch__cluster_dim_x
for m in 8 13 14 15 cublas; do
  if [ $m = cublas ]; then k="regex:nvjet|sm90"; else k="regex:[0-9]mapping${m}11gemm_kernel"; fi
  timeout 120 $NCU --kernel-name-base mangled --kernel-name "$k" --launch-skip 5 --launch-count 1 --metrics $MET \
    $B/gm_mc --out /tmp/x$m.md --shape 600x1248x4736 > $OUT/ncu-600x1248x4736-$m.txt 2>&1; echo "== $m rc=$?"
  grep -E "^\s+(gpu__|sm__|lts__|l1tex__|dram__|launch__)" $OUT/ncu-600x1248x4736-$m.txt
done
