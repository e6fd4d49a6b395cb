#!/usr/bin/env bash
# Round 4 on the GPU machine: the split kernels' setup cluster barrier split into an arrive (setup)
# and a wait before each thread's first hand-over ("bar", this round) against round 2's tree ("new",
# commit dc69638). build-gpu/s25 carried: splitk_latency_new, splitk_latency_bar (probed kernels),
# gemm_e2e_bar (tests/gpu/gemm_correctness.cu on this round's examples/gemm and batched_gemm).
set -u
S="256x256x256 256x256x4096 977x104x6336 487x1688x7536 272x96x2804 280x1472x1472 274x176x6136"
for r in 1 2; do
  for v in new bar; do
    timeout 200 build-gpu/s25/splitk_latency_$v $S > $OUT/r4-$v-$r.md 2>&1 || echo "$v $r failed: $?"
  done
done
timeout 240 build-gpu/s25/gemm_e2e_bar > $OUT/r4-correctness.log 2>&1; echo "correctness exit $?"
grep -c "| ok" $OUT/r4-correctness.log; grep "FAIL" $OUT/r4-correctness.log | head
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck synccheck; do
  for m in 3 4 5 13; do
    for shape in 1537x1500x700 130x70x16; do
      echo "== $tool m$m $shape"
      timeout 120 "$SAN" --tool $tool --error-exitcode 99 --print-limit 10 build-gpu/s25/gemm_e2e_bar --only $shape --mapping $m --runs 1 2>&1 | tail -3
    done
  done
  echo "== $tool batched pick 3x113x280x3400"
  timeout 120 "$SAN" --tool $tool --error-exitcode 99 --print-limit 10 build-gpu/s25/gemm_e2e_bar --only 3x113x280x3400 --runs 1 2>&1 | tail -3
done > $OUT/r4-sanitizers.log 2>&1
grep -E "==|ERROR SUMMARY|RACECHECK SUMMARY|FAIL" $OUT/r4-sanitizers.log | paste - - | head -40
