#!/usr/bin/env bash
# Session 22 round 8 (device): gemm_reduce on the ping-pong mapping (gemm_reduce_pingpong.loom, from
# tests/gpu/e2e/reduce_pingpong.sed: one warpgroup a 128 x 128 tile, row sums over two row blocks,
# alternate(2)): tests/gpu/gemm_reduce_correctness.cu and the sanitizers of tests/gpu/e2e/gemm_reduce.sh,
# then gr_time.cu on it and on examples/gemm_reduce's default, alternating, twice.
set -u
cd "$(dirname "$0")/../../.."
B=build-gpu/s22r8; mkdir -p "$OUT"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 60 $B/corr_pp > $OUT/r8-correctness.log 2>&1; echo "correctness rc=$?"; tail -2 $OUT/r8-correctness.log
for tool in memcheck racecheck synccheck; do
  timeout 40 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $B/corr_pp --only 129x257x65 > $OUT/r8-$tool.log 2>&1; echo "$tool 129x257x65 rc=$?"; tail -1 $OUT/r8-$tool.log
done
timeout 40 $SAN --tool memcheck --error-exitcode 99 --print-limit 20 $B/corr_pp --only 128x256x64 > $OUT/r8-memcheck2.log 2>&1; echo "memcheck 128x256x64 rc=$?"; tail -1 $OUT/r8-memcheck2.log
for round in 1 2; do
  timeout 30 $B/time_def default; timeout 30 $B/time_pp pingpong
done 2>&1 | tee $OUT/r8-time.txt
