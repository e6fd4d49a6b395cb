#!/usr/bin/env bash
# Session 20, round 2: whole-tile loop versioning (src/codegen/whole_tiles.cpp) in FA2, causal FA3, relu_gemm, gemm_reduce_shared.
set -u
export PATH=/usr/local/cuda/bin:$PATH
S=build-gpu/s20
O=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; date -u
for v in fa2 causal; do
  c=(); [ $v = causal ] && c=(--causal)
  for sh in 1x77x77x64 2x200x300x64 3x1000x64x64 1x128x1000x64 4x1024x1024x64 1x1000x1000x64 1x77x77x128 2x200x300x128 1x128x1000x128 4x1024x1024x128 1x4096x4096x128 1x1x1x64; do
    timeout 20 $S/bin/ac_$v --only $sh --seed 11 "${c[@]}" > /tmp/ac.log 2>&1; rc=$?
    echo "$v $sh: rc=$rc $(tail -1 /tmp/ac.log)"
    [ $rc = 124 ] && { echo "TIMEOUT: stopping"; exit 1; }
  done
done
for v in fa2 causal; do
  c=(); [ $v = causal ] && c=(--causal)
  for sh in 2x200x300x64 1x77x77x128; do
    for tool in memcheck racecheck; do
      timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $S/bin/ac_$v --only $sh --seed 3 "${c[@]}" > /tmp/san.log 2>&1
      echo "$v $sh $tool: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.log | tail -1)"
    done
  done
done
date -u
echo "== bench"
LOOM_GEN_DIR=$S/gen LOOM_BUILD_DIR=/tmp/lb OUT=$O timeout 400 bash bench/attention.sh --reps 20 > $O/bench.log 2>&1; echo "bench rc=$?"
grep -E "^- loom|agree" $O/bench.log
date -u
echo "== relu_gemm e2e"; LOOM_GEN_DIR=$S/gen timeout 200 bash tests/gpu/e2e/relu_gemm.sh /tmp > $O/relu_gemm.log 2>&1; echo "relu_gemm rc=$?"; tail -5 $O/relu_gemm.log
echo "== gemm_reduce_shared e2e"; timeout 200 bash tests/gpu/e2e/gemm_reduce.sh $S/gen/gemm_reduce_shared /tmp > $O/gemm_reduce.log 2>&1; echo "gemm_reduce rc=$?"; tail -5 $O/gemm_reduce.log
date -u
