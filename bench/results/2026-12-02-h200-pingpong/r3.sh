#!/usr/bin/env bash
# Session 28, device call 3: where loom's multicast GEMM loses (ncu). examples/gemm's m0 (128 x 256) and
# m10 (the same with multicast(2)) at 4096^3 (rows on sectors; m10 5% slower in r1), and m0, m10, m11
# (128 x 192 multicast(2), 4 stages) at 5264x7640x7224 (rows of A and B off 32-byte sectors), from r1's
# gm_pp binary (build-gpu/s28). Per kernel: speed of light, memory, warp states, and the warp-state
# samples per SASS instruction (source page, csv), summarized by stall_summary.py.
set -u
S=build-gpu/s28
T=$(mktemp -d)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for spec in "4096x4096x4096 0|10" "5264x7640x7224 0|10|11"; do
  shape=${spec% *} maps=${spec#* }
  timeout 200 $NCU --kernel-name-base demangled -k regex:"mapping($maps)::gemm_kernel" --launch-count 3 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SourceCounters --section LaunchStats \
    --import-source no -o $T/ncu-$shape $S/gm_pp --out $T/x.md --shape $shape --check-only > $T/ncu-$shape.log 2>&1
  echo "ncu $shape rc=$?"
  $NCU -i $T/ncu-$shape.ncu-rep --page details > $OUT/r3-ncu-$shape-details.txt 2>&1
  $NCU -i $T/ncu-$shape.ncu-rep --page source --csv --print-source sass > $T/src-$shape.csv 2>&1
  python3 bench/results/2026-12-02-h200-pingpong/stall_summary.py $T/src-$shape.csv > $OUT/r3-stalls-$shape.txt 2>&1
  echo "summary rc=$?"; head -c 3000 $OUT/r3-stalls-$shape.txt
done
