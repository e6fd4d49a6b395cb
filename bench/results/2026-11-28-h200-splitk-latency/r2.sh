#!/usr/bin/env bash
# Round 2 on the GPU machine: the split-K hand-over as a tree (splitk.cpp, this round) against the
# committed one (c653f53). build-gpu/s25 carried: splitk_latency (old kernels, probed),
# splitk_latency_new (new kernels, probed), gemm_e2e (tests/gpu/gemm_correctness.cu on the new
# examples/gemm and examples/batched_gemm), all built on the development machine.
set -u
S="256x256x256 256x256x4096 977x104x6336 487x1688x7536 272x96x2804 280x1472x1472 274x176x6136"
for r in 1 2; do
  for v in old new; do
    b=build-gpu/s25/splitk_latency; [ $v = new ] && b=build-gpu/s25/splitk_latency_new
    timeout 200 $b $S > $OUT/r2-$v-$r.md 2>&1 || echo "$v $r failed: $?"
  done
done
timeout 240 build-gpu/s25/gemm_e2e > $OUT/r2-correctness.log 2>&1; echo "correctness exit $?"
grep -c "| ok" $OUT/r2-correctness.log; grep "FAIL" $OUT/r2-correctness.log | head
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck synccheck; do
  for m in 3 4 5 13; do
    for shape in 1537x1500x700 272x96x2804; do
      echo "== $tool m$m $shape"
      timeout 120 "$SAN" --tool $tool --error-exitcode 99 --print-limit 10 build-gpu/s25/gemm_e2e --only $shape --mapping $m --runs 1 2>&1 | tail -3
    done
  done
done > $OUT/r2-sanitizers.log 2>&1
grep -E "==|ERROR SUMMARY|RACECHECK SUMMARY|FAIL" $OUT/r2-sanitizers.log | paste - - | head -40
for v in old new; do echo "== $v"; grep -E "^## |s[24]\) " $OUT/r2-$v-2.md | cut -c1-120; done
