#!/usr/bin/env bash
# Session 17 final round (the committed examples): gemm_correctness (every mapping by index), the GEMM
# sweeps (seeds 20261125, 20261127) and table, and bench/fused.sh for gemm_bias_act (gelu sweep,
# identity listed) and add_gemm.
set -u
cd "$(dirname "$0")/../.."
G=build-gpu/s17; B=/tmp/s17/bin; L=/tmp/s17/logs; mkdir -p $B $L "$OUT"
NVCC=/usr/local/cuda/bin/nvcc
F=(-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Itests/gpu -I$G/gen/gemm -I$G/gen/batched_gemm -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM)
t0=$(date +%s)
"$NVCC" "${F[@]}" tests/gpu/gemm_correctness.cu $G/gen/gemm/gemm.cu $G/gen/batched_gemm/batched_gemm.cu -lcuda -o $B/corr > $L/b1.log 2>&1 &
"$NVCC" "${F[@]}" bench/gemm_bench.cu $G/gen/gemm/gemm.cu $G/gen/batched_gemm/batched_gemm.cu -lcuda -lcublas -o $B/bench > $L/b2.log 2>&1 &
wait; echo "builds $(( $(date +%s) - t0 )) s"
timeout 120 $B/corr --runs 1 --seed 20261130 > $L/corr.log 2>&1; echo "gemm_correctness rc=$? ok=$(grep -cE '\| ok ' $L/corr.log) FAIL=$(grep -cE '\| FAIL' $L/corr.log)"
for seed in 20261125 20261127; do
  timeout 100 $B/bench --out "$OUT/gemm-sweep-$seed.md" --sweep 40 --sweep-seed $seed --command "build-gpu/s17/run.sh (gemm_bench --sweep 40 --sweep-seed $seed)" > $L/s-$seed.log 2>&1
  echo "sweep $seed rc=$?"; grep -E "geomean|minimum" "$OUT/gemm-sweep-$seed.md"
done
timeout 100 $B/bench --out "$OUT/gemm-table.md" --command "build-gpu/s17/run.sh (gemm_bench)" > $L/t.log 2>&1; echo "table rc=$?"; grep -E "geomean|minimum" "$OUT/gemm-table.md"
echo "elapsed $(( $(date +%s) - t0 )) s"
OUT="$OUT/fused" LOOM_GEN_DIR=$G/gen LOOM_BUILD_DIR=/tmp/s17/fb timeout 240 bash bench/fused.sh --sweep 30 \
  --only gemm_bias_act_gelu --only gemm_bias_act_identity --only add_gemm > $L/fused.log 2>&1
echo "fused rc=$?"; grep -E "^- (gemm_bias_act|add_gemm)" "$OUT/fused/fused.md"
echo "elapsed $(( $(date +%s) - t0 )) s"
cp $L/corr.log "$OUT"/
