#!/usr/bin/env bash
# Session 31, device call 3 (prepare3.sh's binaries in build-gpu/s31g): gemm_bias_act (GELU) + the eight transposed tiles.
#   1. gba_t_e2e: every shape through the pick and every mapping by index; memcheck / racecheck / synccheck on
#      every mapping by index at 129x257x65, memcheck at 1000x1000x1000;
#   2. gemm_bias_act vs cuBLASLt's fused bias + GELU epilogue: listed shapes + the 30-shape sweep, every mapping timed.
set -u
S=build-gpu/s31g
H=bench/results/2026-12-02-h200-transposed
C="bash $H/r3.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $T/r3-smi.txt
( timeout 120 $S/gba_t_e2e
  for tool in memcheck racecheck synccheck; do
    echo "== compute-sanitizer --tool $tool, every mapping by index, 129x257x65"
    timeout 150 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gba_t_e2e --by-index 129x257x65 || echo "FAIL $tool"
  done
  echo "== compute-sanitizer --tool memcheck, every mapping by index, 1000x1000x1000"
  timeout 120 $SAN --tool memcheck --error-exitcode 99 --print-limit 20 $S/gba_t_e2e --by-index 1000x1000x1000 || echo "FAIL memcheck 1000"
) > $T/r3-e2e.log 2>&1
echo "e2e gba_t: $(grep -c 'FAIL' $T/r3-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r3-e2e.log | sort | uniq -c | tr '\n' ' ')"
grep -m5 FAIL $T/r3-e2e.log
timeout 330 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$S/lib/libgba_t.so --only gemm_bias_act_gelu --sweep 30 \
  --by-mapping --out $T/r3-gba.md --command "$C" > $T/r3-gba.log 2>&1
echo "gba rc=$? $(grep 'vs cuBLASLt' $T/r3-gba.md | tr '\n' ' ')"
tar czf $OUT/r3.tgz -C $T .
