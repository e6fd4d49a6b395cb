#!/usr/bin/env bash
# Session 34, device call 2 (prepare1.sh's kernels in build-gpu/s34a): gemm_bias_act (GELU) with the width candidates
# (mappings 13-15): gba_e2e every mapping, memcheck by index at 129x257x65; fused_bench every mapping against
# cuBLASLt's bias + GELU epilogue, listed shapes and the 30-shape sweep (seed 20261125).
set -u
S=build-gpu/s34a
H=bench/results/2026-12-03-h200-widths
C="bash $H/r2.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
( timeout 120 $S/gba_e2e
  echo "== compute-sanitizer --tool memcheck, every mapping by index, 129x257x65"
  timeout 150 $SAN --tool memcheck --error-exitcode 99 --print-limit 20 $S/gba_e2e --by-index 129x257x65 || echo "FAIL memcheck" ) > $T/r2-gba-e2e.log 2>&1
echo "gba e2e: $(grep -c FAIL $T/r2-gba-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|PASS' $T/r2-gba-e2e.log | sort | uniq -c | tr '\n' ' ')"
cp $T/r2-gba-e2e.log $OUT/
timeout 300 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$S/lib/libgba.so --only gemm_bias_act_gelu --sweep 30 \
  --by-mapping --out $T/r2-gba.md --command "$C" > $T/r2-gba.log 2>&1
echo "gba rc=$? $(grep 'vs cuBLASLt' $T/r2-gba.md | tr '\n' ' ')"
cp $T/r2-gba.md $T/r2-gba.log $OUT/
