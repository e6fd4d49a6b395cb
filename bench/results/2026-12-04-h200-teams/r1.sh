#!/usr/bin/env bash
# Device call 1 (session 37): the teams schedule(optimal) derives, against the hand mappings.
# Correctness (tests/gpu/gemm_reduce_correctness.cu, tests/gpu/gemm_correctness.cu: every shape) on
# every variant; compute-sanitizer memcheck / racecheck / synccheck at 129x257x65 on the derived ones;
# then gr_time.cu (gemm_reduce, 7 shapes) and bench/gemm_bench.cu (gemm vs cuBLAS, fixed table and a
# 20-shape sweep; each run alternates loom and cuBLAS) on the hand and the derived variant in turn.
set -u
cd "$(dirname "$0")/../../.."
S=build-gpu/s37; B=$S/bin; mkdir -p $B "$OUT"
NVCC=/usr/local/cuda/bin/nvcc
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -Ibench"
GRT=bench/results/2026-11-28-h200-gemm-reduce-pingpong/gr_time.cu
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/r1-smi.txt
for v in gr_g2_hand gr_g2_opt gr_g1_hand_pp gr_g1_opt; do
  $NVCC $F -I$S/gen/$v tests/gpu/gemm_reduce_correctness.cu $S/gen/$v/gemm_reduce.cu -lcuda -o $B/corr_$v &
  $NVCC $F -I$S/gen/$v $GRT $S/gen/$v/gemm_reduce.cu -lcuda -o $B/time_$v &
done
for v in gemm128_hand gemm128_opt; do
  $NVCC $F -I$S/gen/$v -DLOOM_HAVE_GEMM tests/gpu/gemm_correctness.cu $S/gen/$v/gemm.cu -lcuda -o $B/corr_$v &
  $NVCC $F -I$S/gen/$v -DLOOM_HAVE_GEMM bench/gemm_bench.cu $S/gen/$v/gemm.cu -lcuda -lcublas -o $B/bench_$v &
done
wait
ls $B
for v in gr_g2_hand gr_g2_opt gr_g1_hand_pp gr_g1_opt gemm128_hand gemm128_opt; do
  timeout 120 $B/corr_$v > $OUT/r1-corr-$v.log 2>&1; echo "correctness $v rc=$?"; tail -1 $OUT/r1-corr-$v.log
done
for v in gr_g2_opt gr_g1_opt gemm128_opt; do
  for tool in memcheck racecheck synccheck; do
    timeout 120 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $B/corr_$v --only 129x257x65 > $OUT/r1-$tool-$v.log 2>&1
    echo "$tool $v 129x257x65 rc=$?"; tail -1 $OUT/r1-$tool-$v.log
  done
done
for round in 1 2; do
  for v in gr_g2_hand gr_g2_opt gr_g1_hand_pp gr_g1_opt; do timeout 60 $B/time_$v $v; done
done 2>&1 | tee $OUT/r1-gr-time.txt
for round in 1; do
  for v in gemm128_hand gemm128_opt; do
    timeout 200 $B/bench_$v --out $OUT/r1-gemm-$v-table-$round.md --command "bash $0" > /dev/null 2>&1; echo "gemm_bench $v table round $round rc=$?"
    timeout 200 $B/bench_$v --out $OUT/r1-gemm-$v-sweep-$round.md --sweep 20 --sweep-seed 20261204 --command "bash $0" > /dev/null 2>&1; echo "gemm_bench $v sweep round $round rc=$?"
  done
done
