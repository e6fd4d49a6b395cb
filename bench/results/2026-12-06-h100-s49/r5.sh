#!/usr/bin/env bash
# Session 49, device call 5 (carry build-gpu/s49c.tar.xz and build-gpu/s49d.tar.xz): where r3 / r4 saw the
# extended gemm_bias_act (GELU) or add_gemm slower than as committed before on multi-wave sweep shapes, the pick and
# every mapping by index in one process (bench/fused_bench.py --by-mapping), base and ext libraries; then ncu on
# examples/gemm's mapping 23 at 600x1248x4736 (r4's filter missed it: matched on the mangled name now).
set -u
mkdir -p $OUT
tar xJf build-gpu/s49c.tar.xz; tar xJf build-gpu/s49d.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s)
el() { echo "$(( $(date +%s) - start )) s"; }
T=$(mktemp -d)
C="bash bench/results/2026-12-06-h100-s49/r5.sh"
SH=2112x3648x3848,5312x2584x7744,6192x5624x4888,5304x6224x3864,5368x3960x7152,408x6896x6408
for v in base ext; do
  timeout 150 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=build-gpu/s49c/$v/lib/libgemm_bias_act_gelu.so \
    --lib add_gemm=build-gpu/s49d/$v/lib/libadd_gemm.so --by-mapping --shapes $SH --out $OUT/bymap-$v.md --command "$C" \
    > $T/bymap-$v.log 2>&1
  echo "bymap $v rc=$? $(el)"
done
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SEC="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section LaunchStats"
timeout 120 $NCU $SEC --kernel-name-base mangled -k regex:mapping23 --launch-count 1 build-gpu/s49c/bin/gm3 --shape 600x1248x4736 \
  --out $T/x.md > $OUT/ncu-600-loom-m23.txt 2>&1
echo "ncu loom rc=$? $(el)"
grep -E "Duration|Compute \(SM\) Throughput|L2 Cache Throughput|DRAM Throughput|No Eligible|Warp Cycles Per Issued" $OUT/ncu-600-loom-m23.txt | head
tar czf $OUT/r5-logs.tgz -C $T .
echo "done $(el)"
