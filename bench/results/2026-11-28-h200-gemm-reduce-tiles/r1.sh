#!/usr/bin/env bash
# Session 25 on the GPU machine: examples/gemm_reduce with its two when(fastest) candidates
# (128 x 128 tiles; the ping-pong kernel). build-gpu/s25 carried: gr_e2e
# (tests/gpu/gemm_reduce_correctness.cu on the generated program), gr_mappings (gr_mappings.cu).
set -u
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 200 build-gpu/s25/gr_e2e > $OUT/r1-correctness.log 2>&1; echo "correctness exit $?"; tail -1 $OUT/r1-correctness.log
for tool in memcheck racecheck synccheck; do
  echo "== $tool --by-index 129x257x65"
  timeout 150 "$SAN" --tool $tool --error-exitcode 99 --print-limit 10 build-gpu/s25/gr_e2e --by-index 129x257x65 2>&1 | tail -3
  echo "== $tool --by-index 1000x1000x1000"
  [ $tool = memcheck ] && timeout 150 "$SAN" --tool $tool --error-exitcode 99 --print-limit 10 build-gpu/s25/gr_e2e --by-index 1000x1000x1000 2>&1 | tail -3
done > $OUT/r1-sanitizers.log 2>&1
grep -E "==|ERROR SUMMARY|RACECHECK SUMMARY|PASS|FAIL" $OUT/r1-sanitizers.log
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader
timeout 200 build-gpu/s25/gr_mappings > $OUT/r1-mappings.md 2>&1; cat $OUT/r1-mappings.md
