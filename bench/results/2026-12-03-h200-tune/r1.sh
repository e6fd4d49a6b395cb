#!/usr/bin/env bash
# Session 33, device call 1 (prepare1.sh's binaries in build-gpu/s33a): loom_<entry>_tune.
#   1. gc: tests/gpu/gemm_correctness.cu (gemm + batched_gemm): every shape through the pick, every mapping by index,
#      then loom_<entry>_tune on four shapes (LOOM_OK, the caller's poisoned C untouched, the tuned pick right,
#      NULL A refused); again with LOOM_TUNE=1 (every call tunes its key first); memcheck with LOOM_TUNE=1 on two shapes;
#   2. gm: examples/gemm's 23 mappings beside cuBLAS, with the pick before and after loom_gemm_tune: sweep seeds 20261125
#      and 20261203, and the fixed table.
set -u
S=build-gpu/s33a
H=bench/results/2026-12-03-h200-tune
C="bash $H/r1.sh"
T=$(mktemp -d)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $T/r1-smi.txt 2>&1
timeout 150 $S/gc --runs 1 > $T/r1-gc.log 2>&1; echo "gc rc=$? $(tail -1 $T/r1-gc.log)"
LOOM_TUNE=1 timeout 100 $S/gc --runs 1 --skip-large > $T/r1-gc-env.log 2>&1; echo "gc LOOM_TUNE=1 rc=$? $(tail -1 $T/r1-gc-env.log)"
for sh in 129x257x65 1537x1500x700; do
  LOOM_TUNE=1 timeout 60 compute-sanitizer --tool memcheck $S/gc --only $sh > $T/r1-memcheck-$sh.log 2>&1
  echo "memcheck LOOM_TUNE=1 $sh rc=$? $(grep -E 'ERROR SUMMARY|PASS|FAIL' $T/r1-memcheck-$sh.log | tr '\n' ' ')"
done
for seed in 20261125 20261203; do
  timeout 110 $S/gm --out $T/r1-gemm-sweep-$seed.md --sweep 40 --sweep-seed $seed --command "$C" > $T/r1-gemm-$seed.log 2>&1
  echo "sweep $seed rc=$? $(grep -E '^- (pick|tuned|best) / cuBLAS' $T/r1-gemm-sweep-$seed.md | tr '\n' ' ')"
done
timeout 150 $S/gm --out $T/r1-gemm-table.md --command "$C" > $T/r1-gemm-table.log 2>&1
echo "table rc=$? $(grep -E '^- (pick|tuned|best) / cuBLAS' $T/r1-gemm-table.md | tr '\n' ' ')"
tar czf $OUT/r1.tgz -C $T .
