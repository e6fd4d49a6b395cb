#!/usr/bin/env bash
# Session 29, device call 1 (prepare1.sh's kernels in build-gpu/s29): stream-K candidates on the H200.
#   1. gemm_e2e: every shape, every mapping by index (15, 16 the stream-K ones); memcheck / racecheck /
#      synccheck on 15 and 16 forced at 1000^3 and 129x257x65; gba_e2e (GELU): every mapping, sanitizers by index;
#   2. gm_sk: every mapping of examples/gemm + the candidates beside cuBLAS, sweep seed 20261125 + mid shapes;
#   3. ncu (warp states, per-instruction samples) of m0, m1, m15, m16 at 3520x1760x1552 and 2232x3288x3296;
#   4. gemm_bias_act (GELU) + candidates vs cuBLASLt's epilogue, listed + 30-shape sweep, every mapping.
set -u
S=build-gpu/s29
H=bench/results/2026-12-02-h200-streamk
C="bash $H/r1.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $T/r1-smi.txt 2>&1
( timeout 150 $S/gemm_e2e
  for tool in memcheck racecheck synccheck; do
    for m in 15 16; do
      for shape in 1000x1000x1000 129x257x65; do
        echo "== compute-sanitizer --tool $tool, $shape on mapping $m"
        timeout 100 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gemm_e2e --only $shape --mapping $m --runs 1 || echo "FAIL $tool $m $shape"
      done
    done
  done ) > $T/r1-gemm-e2e.log 2>&1
echo "gemm e2e: $(grep -c FAIL $T/r1-gemm-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r1-gemm-e2e.log | sort | uniq -c | tr '\n' ' ')"
( timeout 120 $S/gba_e2e
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer --tool $tool, every mapping by index, 129x257x65"
    timeout 150 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gba_e2e --by-index 129x257x65 || echo "FAIL $tool"
  done ) > $T/r1-gba-e2e.log 2>&1
echo "gba e2e: $(grep -c FAIL $T/r1-gba-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASS' $T/r1-gba-e2e.log | sort | uniq -c | tr '\n' ' ')"
X="--shape 3520x1760x1552 --shape 2232x3288x3296 --shape 1880x5120x3840 --shape 2832x3960x4848 --shape 2960x1464x3064 --shape 4096x4096x4096 --shape 8192x8192x8192"
timeout 200 $S/gm_sk --out $T/r1-gemm-sweep.md --sweep 40 --sweep-seed 20261125 $X --command "$C" > $T/r1-gemm.log 2>&1
echo "gemm sweep rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r1-gemm-sweep.md | tr '\n' ' ')"
for shape in 3520x1760x1552 2232x3288x3296; do
  timeout 150 $NCU --kernel-name-base demangled -k regex:"mapping(0|1|15|16)::gemm_kernel" --launch-count 4 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SourceCounters --section LaunchStats \
    --import-source no -o $T/ncu-$shape $S/gm_sk --out $T/x.md --shape $shape --check-only > $T/ncu-$shape.log 2>&1
  echo "ncu $shape rc=$?"
  $NCU -i $T/ncu-$shape.ncu-rep --page details > $T/r1-ncu-$shape-details.txt 2>&1
  $NCU -i $T/ncu-$shape.ncu-rep --page source --csv --print-source sass > $T/src-$shape.csv 2>&1
  python3 bench/results/2026-12-02-h200-pingpong/stall_summary.py $T/src-$shape.csv > $T/r1-stalls-$shape.txt 2>&1
  grep -E "mapping|Duration|L2 Cache Throughput|Warp Cycles Per Issued|Registers Per" $T/r1-ncu-$shape-details.txt | head -40
done
timeout 240 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$S/lib/libgba.so --only gemm_bias_act_gelu --sweep 30 \
  --by-mapping --out $T/r1-gba.md --command "$C" > $T/r1-gba.log 2>&1
echo "gba rc=$? $(grep 'vs cuBLASLt' $T/r1-gba.md | tr '\n' ' ')"
tar czf $T/r1-ncu.tgz -C $T r1-ncu-3520x1760x1552-details.txt r1-ncu-2232x3288x3296-details.txt r1-stalls-3520x1760x1552.txt r1-stalls-2232x3288x3296.txt
cp $T/r1-gemm-e2e.log $T/r1-gba-e2e.log $T/r1-gemm-sweep.md $T/r1-gba.md $T/r1-gba.log $T/r1-gemm.log $T/r1-ncu.tgz $T/r1-smi.txt $OUT/
