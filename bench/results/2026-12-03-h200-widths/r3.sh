#!/usr/bin/env bash
# Session 34, device call 3 (prepare2.sh's kernels in build-gpu/s34b): the widths on multicast(2) clusters.
#   1. gemm_e2e on mappings 23-25 (every shape), memcheck on each at 129x257x65 and 505x2856x1048;
#   2. gm: every mapping beside cuBLAS, sweep 20261125 plus the mid shapes;
#   3. gba_e2e (GELU) every mapping, memcheck by index at 129x257x65; fused_bench --by-mapping, listed + 30-shape sweep.
set -u
S=build-gpu/s34b
H=bench/results/2026-12-03-h200-widths
C="bash $H/r3.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
( for m in 23 24 25; do
    timeout 60 $S/gemm_e2e --runs 1 --mapping $m || echo "FAIL e2e $m"
    for shape in 129x257x65 505x2856x1048; do
      echo "== compute-sanitizer --tool memcheck, $shape on mapping $m"
      timeout 40 $SAN --tool memcheck --error-exitcode 99 --print-limit 20 $S/gemm_e2e --only $shape --mapping $m --runs 1 || echo "FAIL memcheck $m $shape"
    done
  done ) > $T/r3-gemm-e2e.log 2>&1
echo "gemm e2e: $(grep -c FAIL $T/r3-gemm-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY' $T/r3-gemm-e2e.log | sort | uniq -c | tr '\n' ' ')"
cp $T/r3-gemm-e2e.log $OUT/
X="--shape 2232x3288x3296 --shape 1867x2616x3776 --shape 505x2856x1048 --shape 4959x800x776 --shape 5000x3000x2000 --shape 4000x4000x4000"
timeout 150 $S/gm --out $T/r3-gemm-sweep-20261125.md --sweep 40 --sweep-seed 20261125 $X --command "$C" > $T/r3-gemm-20261125.log 2>&1
echo "sweep rc=$? $(grep -E '^- (pick|tuned|best) / cuBLAS' $T/r3-gemm-sweep-20261125.md | tr '\n' ' ')"
cp $T/r3-gemm-sweep-20261125.md $T/r3-gemm-20261125.log $OUT/
( timeout 120 $S/gba_e2e
  echo "== compute-sanitizer --tool memcheck, every mapping by index, 129x257x65"
  timeout 150 $SAN --tool memcheck --error-exitcode 99 --print-limit 20 $S/gba_e2e --by-index 129x257x65 || echo "FAIL memcheck" ) > $T/r3-gba-e2e.log 2>&1
echo "gba e2e: $(grep -c FAIL $T/r3-gba-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|PASS' $T/r3-gba-e2e.log | sort | uniq -c | tr '\n' ' ')"
cp $T/r3-gba-e2e.log $OUT/
timeout 200 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$S/lib/libgba.so --only gemm_bias_act_gelu --sweep 30 \
  --by-mapping --out $T/r3-gba.md --command "$C" > $T/r3-gba.log 2>&1
echo "gba rc=$? $(grep 'vs cuBLASLt' $T/r3-gba.md | tr '\n' ' ')"
cp $T/r3-gba.md $T/r3-gba.log $OUT/
