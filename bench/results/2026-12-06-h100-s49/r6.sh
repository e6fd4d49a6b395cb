#!/usr/bin/env bash
# Session 49, device call 6 (carry build-gpu/s49e.tar.xz from prepare6.sh and build-gpu/s49c.tar.xz from prepare3.sh):
#  1. the committed examples/gemm (28 mappings) through bench/gemm_mappings.cu: session 46's 14 listed shapes and the
#     40-shape sweep of seed 20261125 (the launcher's own pick, not a replay);
#  2. ncu at 2232x3288x3296, where loom's transposed 224 x 128 tiles on 1 x 2 clusters (gm3's mapping 28) run 80 µs
#     against cuBLAS's 71 with the same tile and cluster: both kernels and examples/gemm's 128 x 256 on clusters of
#     2 (mapping 10), one launch each.
set -u
mkdir -p $OUT
tar xJf build-gpu/s49e.tar.xz; tar xJf build-gpu/s49c.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s)
el() { echo "$(( $(date +%s) - start )) s"; }
T=$(mktemp -d)
C="bash bench/results/2026-12-06-h100-s49/r6.sh"
G=build-gpu/s49e/bin/gm28
SH=""; for s in 6408x696x7384 408x6896x6408 1880x5120x3840 5968x2448x6416 2232x3288x3296 3464x4040x1240 656x5248x7728 \
  1264x2688x7968 600x1248x4736 505x2856x1048 4959x800x776 977x104x6336 4096x4096x4096 6736x5016x5456; do SH="$SH --shape $s"; done
timeout 90 $G --out $OUT/gm28-listed.md $SH --command "$C" > $T/gm28-listed.log 2>&1; echo "gm28 listed rc=$? $(el)"
grep -E '^- (pick|tuned|best)' $OUT/gm28-listed.md
timeout 200 $G --out $OUT/gm28-sweep.md --sweep 40 --sweep-seed 20261125 --command "$C" > $T/gm28-sweep.log 2>&1
echo "gm28 sweep rc=$? $(el)"; grep -E '^- (pick|tuned|best)' $OUT/gm28-sweep.md
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SEC="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy"
for k in mapping28 mapping10 nvjet; do
  timeout 100 $NCU $SEC --kernel-name-base mangled -k regex:$k --launch-count 1 build-gpu/s49c/bin/gm3 --shape 2232x3288x3296 \
    --out $T/x-$k.md > $OUT/ncu-2232-$k.txt 2>&1
  echo "ncu $k rc=$? $(el)"
done
grep -E "Duration|L2 Cache Throughput|Compute \(SM\) Throughput|No Eligible|Warp Cycles Per Issued" $OUT/ncu-2232-*.txt | head -20
tar czf $OUT/r6-logs.tgz -C $T .
echo "done $(el)"
