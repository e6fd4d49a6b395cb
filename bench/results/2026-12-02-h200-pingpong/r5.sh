#!/usr/bin/env bash
# Session 28, device call 5 (prepare5.sh's kernels in build-gpu/s28d): the 4-stage multicast mappings with
# their epilogue staged in parts, as committed.
#   1. gemm_e2e (tests/gpu/gemm_correctness.cu on examples/gemm + batched_gemm): every shape, every mapping by
#      index; memcheck / racecheck / synccheck on mappings 10 and 12 forced at 1000^3 and 129x257x65;
#   2. gba_e2e (gemm_bias_act GELU): every shape, every mapping by index; the three sanitizers on every mapping
#      by index at 129x257x65;
#   3. examples/gemm before (gm_old) and after (gm_new), every mapping beside cuBLAS: sweeps of seeds 20261125
#      and 20261127 and the fixed table, old and new alternating;
#   4. gemm_bias_act (GELU) vs cuBLASLt's epilogue, listed + 30-shape sweep, every mapping.
set -u
S=build-gpu/s28d
C="bash bench/results/2026-12-02-h200-pingpong/r5.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
( timeout 150 $S/gemm_e2e
  for tool in memcheck racecheck synccheck; do
    for m in 10 12; do
      for shape in 1000x1000x1000 129x257x65; do
        echo "== compute-sanitizer --tool $tool, $shape on mapping $m"
        timeout 120 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gemm_e2e --only $shape --mapping $m --runs 1 || echo "FAIL $tool $m $shape"
      done
    done
  done ) > $T/r5-gemm-e2e.log 2>&1
echo "gemm e2e: $(grep -c FAIL $T/r5-gemm-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r5-gemm-e2e.log | sort | uniq -c | tr '\n' ' ')"
( timeout 120 $S/gba_e2e
  for tool in memcheck racecheck synccheck; do
    echo "== compute-sanitizer --tool $tool, every mapping by index, 129x257x65"
    timeout 150 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gba_e2e --by-index 129x257x65 || echo "FAIL $tool"
  done ) > $T/r5-gba-e2e.log 2>&1
echo "gba e2e: $(grep -c FAIL $T/r5-gba-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASS' $T/r5-gba-e2e.log | sort | uniq -c | tr '\n' ' ')"
for seed in 20261125 20261127; do
  for v in old new; do
    timeout 150 $S/gm_$v --out $T/r5-gemm-$v-sweep-$seed.md --sweep 40 --sweep-seed $seed --command "$C" >> $T/r5-gemm.log 2>&1
    echo "gemm $v sweep $seed rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r5-gemm-$v-sweep-$seed.md | tr '\n' ' ')"
  done
done
for v in old new; do
  timeout 100 $S/gm_$v --out $T/r5-gemm-$v-table.md --command "$C" >> $T/r5-gemm.log 2>&1
  echo "gemm $v table rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r5-gemm-$v-table.md | tr '\n' ' ')"
done
timeout 200 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$S/lib/libgba.so --only gemm_bias_act_gelu --sweep 30 \
  --by-mapping --out $T/r5-gba.md --command "$C" > $T/r5-gba.log 2>&1
echo "gba rc=$? $(grep 'vs cuBLASLt' $T/r5-gba.md | tr '\n' ' ')"
cp $T/r5* $OUT/
