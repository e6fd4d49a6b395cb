#!/usr/bin/env bash
# Session 28, device call 1 (kernels from prepare.sh in build-gpu/s28): ping-pong candidates.
#   1. gba_pp (examples/gemm_bias_act, GELU, + m12-m14): every shape through the pick and every mapping by
#      index (gemm_bias_act_correctness), then memcheck / racecheck / synccheck on every mapping by index at
#      129x257x65 and memcheck at 1000x1000x1000;
#   2. gemm_bias_act (GELU) vs cuBLASLt's fused epilogue, listed shapes + 30-shape sweep, every mapping timed
#      (--by-mapping);
#   3. gm_pp (examples/gemm + the same candidates, m15-m17): every mapping timed beside cuBLAS on the
#      40-shape sweep (seed 20261125) and the fixed table.
set -u
S=build-gpu/s28
R=bench/results/2026-12-02-h200-pingpong
C="bash $R/r1.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $T/r1-smi.txt
( timeout 120 $S/gba_pp_e2e
  for tool in memcheck racecheck synccheck; do
    echo "== compute-sanitizer --tool $tool, every mapping by index, 129x257x65"
    timeout 150 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gba_pp_e2e --by-index 129x257x65 || echo "FAIL $tool"
  done
  echo "== compute-sanitizer --tool memcheck, every mapping by index, 1000x1000x1000"
  timeout 120 $SAN --tool memcheck --error-exitcode 99 --print-limit 20 $S/gba_pp_e2e --by-index 1000x1000x1000 || echo "FAIL memcheck 1000"
) > $T/r1-e2e.log 2>&1
echo "e2e gba_pp: $(grep -c 'FAIL' $T/r1-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASS' $T/r1-e2e.log | tr '\n' ' ')"
timeout 300 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$S/lib/libgba_pp.so --only gemm_bias_act_gelu --sweep 30 \
  --by-mapping --out $T/r1-gba.md --command "$C" > $T/r1-gba.log 2>&1
echo "gba rc=$? $(grep 'vs cuBLASLt' $T/r1-gba.md | tr '\n' ' ')"
timeout 200 $S/gm_pp --out $T/r1-gemm-sweep.md --sweep 40 --sweep-seed 20261125 --command "$C" > $T/r1-gemm.log 2>&1
echo "gemm sweep rc=$? $(grep -E '^- (pick|best)' $T/r1-gemm-sweep.md | tr '\n' ' ')"
timeout 100 $S/gm_pp --out $T/r1-gemm-table.md --command "$C" >> $T/r1-gemm.log 2>&1
echo "gemm table rc=$? $(grep -E '^- (pick|best)' $T/r1-gemm-table.md | tr '\n' ' ')"
cp $T/* $OUT/ 2>/dev/null
