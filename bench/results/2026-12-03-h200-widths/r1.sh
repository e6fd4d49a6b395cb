#!/usr/bin/env bash
# Session 34, device call 1 (prepare1.sh's kernels in build-gpu/s34a): block widths that are not whole 64-column
# swizzle slices (ir::padded_row), as candidates beside the committed mappings.
#   1. gemm_e2e: every shape, every mapping by index (23-27 the new widths); memcheck on 23-27 at 129x257x65 and
#      1000x1000x1000, racecheck and synccheck on 23 at 129x257x65;
#   2. gm: every mapping beside cuBLAS, sweeps 20261125 and 20261203 (40 shapes each) plus mid shapes whose tiles
#      quantize badly with widths of whole slices.
set -u
S=build-gpu/s34a
H=bench/results/2026-12-03-h200-widths
C="bash $H/r1.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $T/r1-smi.txt 2>&1
( timeout 200 $S/gemm_e2e --runs 1
  for m in 23 24 25 26 27; do
    for shape in 129x257x65 1000x1000x1000; do
      echo "== compute-sanitizer --tool memcheck, $shape on mapping $m"
      timeout 40 $SAN --tool memcheck --error-exitcode 99 --print-limit 20 $S/gemm_e2e --only $shape --mapping $m --runs 1 || echo "FAIL memcheck $m $shape"
    done
  done
  for tool in racecheck synccheck; do
    echo "== compute-sanitizer --tool $tool, 129x257x65 on mapping 23"
    timeout 60 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gemm_e2e --only 129x257x65 --mapping 23 --runs 1 || echo "FAIL $tool 23"
  done ) > $T/r1-gemm-e2e.log 2>&1
echo "gemm e2e: $(grep -c FAIL $T/r1-gemm-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r1-gemm-e2e.log | sort | uniq -c | tr '\n' ' '); $(tail -1 $T/r1-gemm-e2e.log)"
cp $T/r1-gemm-e2e.log $T/r1-smi.txt $OUT/
X="--shape 2232x3288x3296 --shape 1867x2616x3776 --shape 505x2856x1048 --shape 4959x800x776 --shape 5000x3000x2000 --shape 4000x4000x4000"
for seed in 20261125 20261203; do
  timeout 150 $S/gm --out $T/r1-gemm-sweep-$seed.md --sweep 40 --sweep-seed $seed $X --command "$C" > $T/r1-gemm-$seed.log 2>&1
  echo "sweep $seed rc=$? $(grep -E '^- (pick|tuned|best) / cuBLAS' $T/r1-gemm-sweep-$seed.md | tr '\n' ' ')"
  tar czf $OUT/r1-$seed.tgz -C $T r1-gemm-sweep-$seed.md r1-gemm-$seed.log
done
