#!/usr/bin/env bash
# Session 32, device call 3 (prepare3.sh's binaries in build-gpu/s32c: the examples with fit/cost-model-terms.patch, the cost model's clock
# under load and ring refill terms):
#   1. gm: examples/gemm's 23 mappings beside cuBLAS on a sweep seed not used before (20261203), seed 20261202 again,
#      and the fixed table: where the launcher's pick lands now;
#   2. fused_bench --by-mapping: gemm_bias_act (GELU) vs cuBLASLt and add_gemm vs its unfused peer, listed shapes and
#      the 30-shape sweep, every mapping timed (the pick of the new model against the best).
set -u
S=build-gpu/s32c
H=bench/results/2026-12-02-h200-limits
C="bash $H/r3.sh"
T=$(mktemp -d)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $T/r3-smi.txt 2>&1
for seed in 20261203 20261202; do
  timeout 150 $S/gm --out $T/r3-gemm-sweep-$seed.md --sweep 40 --sweep-seed $seed --command "$C" > $T/r3-gemm-$seed.log 2>&1
  echo "sweep $seed rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r3-gemm-sweep-$seed.md | tr '\n' ' ')"
done
timeout 200 $S/gm --out $T/r3-gemm-table.md --command "$C" > $T/r3-gemm-table.log 2>&1
echo "table rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r3-gemm-table.md | tr '\n' ' ')"
timeout 280 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$S/lib/libgemm_bias_act_gelu.so --lib add_gemm=$S/lib/libadd_gemm.so \
  --only gemm_bias_act_gelu --only add_gemm --sweep 30 --by-mapping --out $T/r3-fused.md --command "$C" > $T/r3-fused.log 2>&1
echo "fused rc=$? $(grep -E 'vs cuBLASLt|vs two' $T/r3-fused.md | head -6 | tr '\n' ' ')"
tar czf $OUT/r3.tgz -C $T .
