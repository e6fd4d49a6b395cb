#!/usr/bin/env bash
# Session 36, device call 3: gelu_fast (the leaf) on the GPU.
#  1. tests/gpu/gemm_bias_act_correctness.cu with -DLOOM_ACT=4 against the generated gelu_fast kernel:
#     every shape through the pick and every mapping by index (fresh inputs, poisoned outputs, double
#     reference); compute-sanitizer memcheck, racecheck and synccheck on every mapping by index at
#     129x257x65, memcheck through the pick at 1000x1000x1000.
#  2. bymap.py (bench/results/2026-12-04-h200-bymap) on that folder's 13 shapes: identity, gelu and
#     gelu-fast, every mapping by index and the pick, beside cuBLAS and cuBLASLt's bias + GELU.
#  3. bench/fused_bench.py: gemm_bias_act_gelu and gemm_bias_act_gelu_fast on the listed shapes and the
#     30-shape sweep (seed 20261125), against cuBLASLt's bias + GELU epilogue and torch unfused.
set -u
S=build-gpu/s36
H=bench/results/2026-12-04-h200-gelu-fast
B=bench/results/2026-12-04-h200-bymap
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
mkdir -p $S/lib $S/bin
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
so() {  # so NAME GENDIR
  nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime -I$2 $2/*.cu -o $S/lib/lib$1.so \
    -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/$1.log 2>&1 \
    && echo "ok $1" || { echo "FAIL $1"; cat $S/lib/$1.log; }
}
so identity $S/gen/gemm_bias_act_identity &
so gelu $S/gen/gemm_bias_act_gelu &
so gelu-fast $S/gen/gemm_bias_act_gelu_fast &
nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -DLOOM_ACT=4 -Iruntime -Itests/gpu -I$S/gen/gemm_bias_act_gelu_fast \
  tests/gpu/gemm_bias_act_correctness.cu $S/gen/gemm_bias_act_gelu_fast/gemm_bias_act.cu -lcuda -o $S/bin/gba_gelu_fast > $S/bin/build.log 2>&1 \
  && echo "ok harness" || { echo "FAIL harness"; cat $S/bin/build.log; } &
wait
SAN=compute-sanitizer
{ $S/bin/gba_gelu_fast; echo "correctness rc=$?"
  for tool in memcheck racecheck synccheck; do
    $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/bin/gba_gelu_fast --by-index 129x257x65 > $OUT/r1-san-$tool.log 2>&1
    echo "$tool by index 129x257x65 rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/r1-san-$tool.log | tail -1)"
  done
  $SAN --tool memcheck --error-exitcode 99 --print-limit 20 $S/bin/gba_gelu_fast --only 1000x1000x1000 > $OUT/r1-san-memcheck-1000.log 2>&1
  echo "memcheck pick 1000x1000x1000 rc=$? $(grep -E 'ERROR SUMMARY' $OUT/r1-san-memcheck-1000.log | tail -1)"
} > $OUT/r1-correctness.log 2>&1
grep -E "FAIL|rc=|PASS" $OUT/r1-correctness.log | tail -12
SHAPES=5312x2584x7744,6456x2912x5496,5096x6688x2936,2232x3288x3296,1880x5120x3840,7168x7760x328,1704x5336x928,3464x4040x1240,6408x696x7384,2832x3960x4848,4096x4096x4096,8192x8192x1024,4096x14336x4096
timeout 300 python3 $B/bymap.py --lib identity=$S/lib/libidentity.so --lib gelu=$S/lib/libgelu.so --lib gelu-fast=$S/lib/libgelu-fast.so \
  --labels identity=$S/gen/gba.labels --labels gelu=$S/gen/gba.labels --labels gelu-fast=$S/gen/gba.labels \
  --shapes $SHAPES --out $OUT/r1-bymap.md --command "bash $H/r1.sh" > $OUT/r1-bymap.log 2>&1
echo "bymap rc=$?"; grep -E "^- [a-zA-Z]" $OUT/r1-bymap.md
timeout 300 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$S/lib/libgelu.so --lib gemm_bias_act_gelu_fast=$S/lib/libgelu-fast.so \
  --sweep 30 --sweep-acts gelu,gelu_fast --out $OUT/r1-fused.md --command "bash $H/r1.sh" > $OUT/r1-fused.log 2>&1
echo "fused rc=$?"; grep -iE "geomean|sweep|listed" $OUT/r1-fused.md | tail -20
