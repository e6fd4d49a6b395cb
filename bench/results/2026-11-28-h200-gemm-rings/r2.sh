#!/usr/bin/env bash
# Session 23 (device), round 2: batched_rings.loom (examples/batched_gemm as committed before this
# change + mapping 8 with 8 stages as m13, mapping 1 with 6 as m14) timed mapping by mapping over the
# batched sweep, both seeds (build-gpu/s23r/gm_brings, -DLOOM_MAPPINGS=15); then tests/gpu/e2e/gemm.sh
# on examples/gemm and examples/batched_gemm with the deeper rings in place (build-gpu/gen).
set -u
B=build-gpu/s23r/gm_brings
for seed in 20261125 20261127; do
  timeout 150 $B --out $OUT/r2-batched-sweep-$seed.md --sweep 40 --sweep-seed $seed \
    --command "bash bench/results/2026-11-28-h200-gemm-rings/r2.sh" > $OUT/r2-batched-$seed.log 2>&1
  echo "seed $seed rc=$?"; tail -3 $OUT/r2-batched-sweep-$seed.md
done
LOOM_GPU_ONLY='^e2e\.gemm$' LOOM_GPU_BUDGET_S=300 bash tests/gpu/run.sh > $OUT/r2-gpu-tests.log 2>&1; echo "gpu tests rc=$?"
grep -E "PASS|FAIL" $OUT/r2-gpu-tests.log | grep -v LOOM_GPU_ONLY | tail -5
