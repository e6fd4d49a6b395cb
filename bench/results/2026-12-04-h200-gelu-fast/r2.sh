#!/usr/bin/env bash
# Session 36, device call 4: gemm_bias_act with gelu and gelu_fast, the cost model's pick against the
# measured choice (bench/fused_bench.py --tune: loom_<entry>_tune, docs/artifact.md "Tuning") on the
# listed shapes and the 30-shape sweep (seed 20261125), beside cuBLASLt's bias + GELU epilogue.
set -u
S=build-gpu/s36
H=bench/results/2026-12-04-h200-gelu-fast
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
mkdir -p $S/lib
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
so() {  # so NAME GENDIR
  nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime -I$2 $2/*.cu -o $S/lib/lib$1.so \
    -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/$1.log 2>&1 \
    && echo "ok $1" || { echo "FAIL $1"; cat $S/lib/$1.log; }
}
so gelu $S/gen/gemm_bias_act_gelu &
so gelu-fast $S/gen/gemm_bias_act_gelu_fast &
wait
timeout 480 python3 bench/fused_bench.py --tune --lib gemm_bias_act_gelu=$S/lib/libgelu.so --lib gemm_bias_act_gelu_fast=$S/lib/libgelu-fast.so \
  --sweep 30 --sweep-acts gelu,gelu_fast --out $OUT/r2-fused-tune.md --command "bash $H/r2.sh" > $OUT/r2-fused-tune.log 2>&1
echo "fused rc=$?"; grep -E "^- gemm" $OUT/r2-fused-tune.md
