#!/usr/bin/env bash
# Session 49, device call 4 (carry build-gpu/s49d.tar.xz from prepare4.sh and build-gpu/s49c.tar.xz from prepare3.sh):
#  1. add_gemm with add_gemm_tmc.sh's transposed 208 x 128 tiles on 2 x 4 clusters (ext, 14 mappings):
#     tests/gpu/add_gemm_correctness.cu (every shape through the pick, every mapping by index) and compute-sanitizer
#     memcheck on every mapping by index at 129x257x65;
#  2. bench/fused_bench.py, the committed add_gemm (base) then ext, each against torch's two GEMMs + add in the same
#     process: 5 listed shapes + the 30-shape sweep (seed 20261125);
#  3. ncu at 600x1248x4736 (GEMM's lowest ratio to cuBLAS): examples/gemm's 64 x 128 tiles on 4 x 2 clusters
#     (mapping 23 of gm3) and cuBLAS's kernel, one launch each (speed of light, memory, warp states, scheduler).
set -u
mkdir -p $OUT
tar xJf build-gpu/s49d.tar.xz; tar xJf build-gpu/s49c.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s)
el() { echo "$(( $(date +%s) - start )) s"; }
T=$(mktemp -d)
C="bash bench/results/2026-12-06-h100-s49/r4.sh"
S=build-gpu/s49d
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 60 $S/bin/add_gemm_ext > $OUT/add-gemm-ext-correctness.txt 2>&1; echo "add_gemm_ext rc=$? $(el)"; tail -1 $OUT/add-gemm-ext-correctness.txt
timeout 60 $SAN --tool memcheck --error-exitcode 99 --print-limit 10 $S/bin/add_gemm_ext --by-index 129x257x65 > $T/add-gemm-ext-memcheck.txt 2>&1
echo "add_gemm_ext memcheck rc=$? $(grep -E 'ERROR SUMMARY' $T/add-gemm-ext-memcheck.txt | sort | uniq -c | tr '\n' ' ') $(el)"
for v in base ext; do
  timeout 130 python3 bench/fused_bench.py --lib add_gemm=$S/$v/lib/libadd_gemm.so --sweep 30 \
    --out $OUT/add-gemm-$v.md --command "$C" > $T/add-gemm-$v.log 2>&1
  echo "add_gemm $v rc=$? $(el)"; grep -iE "vs torch" $OUT/add-gemm-$v.md | head -4
done
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SEC="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section LaunchStats"
timeout 120 $NCU $SEC -k regex:mapping23 --launch-count 1 build-gpu/s49c/bin/gm3 --shape 600x1248x4736 --out $T/x.md > $OUT/ncu-600-loom-m23.txt 2>&1
echo "ncu loom rc=$? $(el)"
timeout 120 $NCU $SEC -k regex:nvjet --launch-count 1 build-gpu/s49c/bin/gm3 --shape 600x1248x4736 --out $T/y.md > $OUT/ncu-600-cublas.txt 2>&1
echo "ncu cublas rc=$? $(el)"
grep -E "Duration|Compute \(SM\) Throughput|L2 Cache Throughput|DRAM Throughput|Memory Throughput|Issue Slots Busy|No Eligible|Warp Cycles Per Issued" $OUT/ncu-600-*.txt | head -30
tar czf $OUT/r4-logs.tgz -C $T .
echo "done $(el)"
