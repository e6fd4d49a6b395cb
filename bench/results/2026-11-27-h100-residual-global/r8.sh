#!/usr/bin/env bash
# Session 18: gemm_residual with C staged by TMA (the example) vs C read from global by the threads
# (residual_global.sed, now through ldg_frag_pairs), same machine, alternating.
set -u
cd "$(dirname "$0")/../.."
G=build-gpu/s18/gen; W=/tmp/s18/w8; mkdir -p $W "$OUT"
NVCC=/usr/local/cuda/bin/nvcc
printf '{ global: loom_*; local: *; };\n' > $W/exports.map
for n in gemm_residual gemm_residual_global; do
  $NVCC -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime -I$G/$n $G/$n/gemm_residual.cu -o $W/lib$n.so \
    -Xlinker --version-script=$W/exports.map -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda &
done
wait
for r in 1 2; do for n in gemm_residual gemm_residual_global; do
  PYTHONUNBUFFERED=1 timeout 150 python3 bench/fused_bench.py --lib gemm_residual=$W/lib$n.so --only gemm_residual \
    --out $OUT/$n-$r.md --command "r8.sh $n" > $W/$n-$r.log 2>&1
  echo "$n round $r rc=$?"; grep -E "^- gemm_residual" $OUT/$n-$r.md
done; done
