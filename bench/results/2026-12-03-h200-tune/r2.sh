#!/usr/bin/env bash
# Session 33, device call 2 (prepare1.sh's binaries in build-gpu/s33a): loom_<entry>_tune, continued.
#   0. gm2 (gemm_mappings.cu with --settle-ms and the second round reversed): the fixed table with 0 and 100 ms of each
#      method's own untimed work before its timed batch (r1: the same kernel timed after a lighter one ran up to 15% faster);
#   1. fused_bench --tune: gemm_bias_act (GELU) vs cuBLASLt's epilogue and add_gemm vs its unfused peer, the listed shapes and
#      the 30-shape sweep: 'loom' = the cost model's pick (pinned by index), 'loom tuned' = loom_<entry>() after loom_<entry>_tune.
set -u
S=build-gpu/s33a
H=bench/results/2026-12-03-h200-tune
C="bash $H/r2.sh"
T=$(mktemp -d)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $T/r2-smi.txt 2>&1
for ms in 0 100; do
  timeout 130 $S/gm2 --out $T/r2-gemm-table-settle$ms.md --settle-ms $ms --command "$C" > $T/r2-gemm-table-settle$ms.log 2>&1
  echo "table settle $ms rc=$? $(grep -E '^- (pick|tuned|best) / cuBLAS' $T/r2-gemm-table-settle$ms.md | tr '\n' ' ')"
done
tar czf $OUT/r2a.tgz -C $T .
timeout 330 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$S/lib/libgemm_bias_act_gelu.so --lib add_gemm=$S/lib/libadd_gemm.so \
  --only gemm_bias_act_gelu --only add_gemm --sweep 30 --tune --out $T/r2-fused.md --command "$C" > $T/r2-fused.log 2>&1
echo "fused rc=$? $(grep -E 'vs cuBLASLt|vs two' $T/r2-fused.md | tr '\n' ' ')"
tar czf $OUT/r2b.tgz -C $T .
