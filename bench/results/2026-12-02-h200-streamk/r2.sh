#!/usr/bin/env bash
# Session 29, device call 2 (prepare2.sh's binaries in build-gpu/s29t): a timeline of the stream-K kernels'
# turns (trace.py, trace_main.cu) on three shapes, each as stream-K and with every tile whole (LOOM_SK_DP=1,
# the same kernel); then ncu's per-instruction warp-state samples of the 128 x 256 kernel at 3520x1760x1552
# both ways (one launch each, after the warm-up calls).
set -u
S=build-gpu/s29t
H=bench/results/2026-12-02-h200-streamk
T=$(mktemp -d)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
mkdir -p $T/trace
for v in 256 128; do
  for shape in 3520x1760x1552 4096x4096x4096 2232x3288x3296; do
    a=$(echo $shape | tr x ' ')
    timeout 60 $S/trace$v $a > $T/trace/sk$v-$shape.csv 2>&1; echo "trace$v $shape sk rc=$? $(tail -1 $T/trace/sk$v-$shape.csv)"
    LOOM_SK_DP=1 timeout 60 $S/trace$v $a > $T/trace/dp$v-$shape.csv 2>&1; echo "trace$v $shape dp rc=$? $(tail -1 $T/trace/dp$v-$shape.csv)"
  done
done
for mode in sk dp; do
  if [ $mode = dp ]; then export LOOM_SK_DP=1; else unset LOOM_SK_DP; fi
  timeout 120 $NCU --launch-skip 4 --launch-count 1 -k regex:gemm_kernel --section WarpStateStats --section SourceCounters \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --import-source no -o $T/ncu-$mode $S/trace256 3520 1760 1552 > $T/ncu-$mode.log 2>&1
  echo "ncu $mode rc=$?"
  $NCU -i $T/ncu-$mode.ncu-rep --page details > $T/trace/ncu-$mode-details.txt 2>&1
  $NCU -i $T/ncu-$mode.ncu-rep --page source --csv --print-source sass > $T/src-$mode.csv 2>&1
  python3 bench/results/2026-12-02-h200-pingpong/stall_summary.py $T/src-$mode.csv > $T/trace/stalls-$mode.txt 2>&1
  grep -E "Duration|L2 Cache Throughput|DRAM Throughput" $T/trace/ncu-$mode-details.txt
done
unset LOOM_SK_DP
tar czf $OUT/r2-trace.tgz -C $T trace
