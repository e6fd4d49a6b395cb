#!/usr/bin/env bash
# Session 33, device call 3 (prepare2.sh's binaries in build-gpu/s33b: the tuner settles each candidate, times them twice,
# the second pass reversed, and keeps the model's pick within 3%; gm / gmb with --settle-ms and reversed second rounds):
#   1. gc (gemm + batched_gemm, one run per shape, the tuning checks), and again with LOOM_TUNE=1 (--skip-large);
#   2. gm: sweeps 20261125 and 20261203 with 20 ms of settling per timed batch, the fixed table with 100 ms; gmb: the batched
#      sweep 20261125 with 20 ms;
#   3. fused_bench --tune: gemm_bias_act (GELU) vs cuBLASLt and add_gemm vs unfused, listed shapes and the 30-shape sweep.
set -u
S=build-gpu/s33b
H=bench/results/2026-12-03-h200-tune
C="bash $H/r3.sh"
T=$(mktemp -d)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $T/r3-smi.txt 2>&1
timeout 120 $S/gc --runs 1 > $T/r3-gc.log 2>&1; echo "gc rc=$? $(tail -1 $T/r3-gc.log)"
LOOM_TUNE=1 timeout 80 $S/gc --runs 1 --skip-large > $T/r3-gc-env.log 2>&1; echo "gc LOOM_TUNE=1 rc=$? $(tail -1 $T/r3-gc-env.log)"
for seed in 20261125 20261203; do
  timeout 100 $S/gm --out $T/r3-gemm-sweep-$seed.md --sweep 40 --sweep-seed $seed --settle-ms 20 --command "$C" > $T/r3-gemm-$seed.log 2>&1
  echo "sweep $seed rc=$? $(grep -E '^- (pick|tuned|best) / cuBLAS' $T/r3-gemm-sweep-$seed.md | tr '\n' ' ')"
done
timeout 130 $S/gm --out $T/r3-gemm-table.md --settle-ms 100 --command "$C" > $T/r3-gemm-table.log 2>&1
echo "table rc=$? $(grep -E '^- (pick|tuned|best) / cuBLAS' $T/r3-gemm-table.md | tr '\n' ' ')"
tar czf $OUT/r3a.tgz -C $T .
timeout 200 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$S/lib/libgemm_bias_act_gelu.so --lib add_gemm=$S/lib/libadd_gemm.so \
  --only gemm_bias_act_gelu --only add_gemm --sweep 30 --tune --out $T/r3-fused.md --command "$C" > $T/r3-fused.log 2>&1
echo "fused rc=$? $(grep -E 'vs cuBLASLt|vs torch unfused' $T/r3-fused.md | tr '\n' ' ')"
tar czf $OUT/r3b.tgz -C $T r3-fused.md r3-fused.log
timeout 100 $S/gmb --out $T/r3-batched-sweep-20261125.md --sweep 40 --sweep-seed 20261125 --settle-ms 20 --command "$C" > $T/r3-batched.log 2>&1
echo "batched sweep rc=$? $(grep -E '^- (pick|tuned|best) / cuBLAS' $T/r3-batched-sweep-20261125.md | tr '\n' ' ')"
tar czf $OUT/r3c.tgz -C $T r3-batched-sweep-20261125.md r3-batched.log
