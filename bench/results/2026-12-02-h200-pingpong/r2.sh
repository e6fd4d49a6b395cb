#!/usr/bin/env bash
# Session 28, device call 2 (prepare2.sh's kernels in build-gpu/s28b: the committed gemm_bias_act and
# cost model):
#   1. tests/gpu/e2e/gemm_bias_act.sh with its harnesses built beforehand: all four activations, every
#      shape and every mapping by index, memcheck / racecheck / synccheck on every mapping by index;
#   2. gemm_bias_act (GELU) vs cuBLASLt's fused epilogue: listed shapes and the 30-shape sweep, the
#      launcher's pick and every mapping (--by-mapping); the other activations at the listed shapes;
#   3. gemm_reduce (row sums in registers) at the listed shapes, every mapping.
set -u
S=build-gpu/s28b
C="bash bench/results/2026-12-02-h200-pingpong/r2.sh"
T=$(mktemp -d)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $T/r2-smi.txt
LOOM_GEN_DIR=$S/gen GEMM_BIAS_ACT_E2E_BINS=$S/bins timeout 330 bash tests/gpu/e2e/gemm_bias_act.sh $T > $T/r2-e2e.log 2>&1
echo "e2e rc=$? $(grep -cE 'FAIL' $T/r2-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r2-e2e.log | sort | uniq -c | tr '\n' ' ')"
timeout 200 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$S/lib/libgba_gelu.so --only gemm_bias_act_gelu --sweep 30 \
  --by-mapping --out $T/r2-gba.md --command "$C" > $T/r2-gba.log 2>&1
echo "gba rc=$? $(grep 'vs cuBLASLt' $T/r2-gba.md | tr '\n' ' ')"
timeout 100 python3 bench/fused_bench.py --lib gemm_bias_act_identity=$S/lib/libgba_identity.so --lib gemm_bias_act_relu=$S/lib/libgba_relu.so \
  --lib gemm_bias_act_silu=$S/lib/libgba_silu.so --lib gemm_reduce_registers=$S/lib/libgr.so --by-mapping --out $T/r2-others.md --command "$C" > $T/r2-others.log 2>&1
echo "others rc=$? $(grep -E 'listed vs' $T/r2-others.md | tr '\n' ' ')"
cp $T/* $OUT/ 2>/dev/null
