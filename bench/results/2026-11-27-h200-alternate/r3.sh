#!/usr/bin/env bash
# Session 19 round 3: gemm_bias_act (GELU) default mapping + two alternate(2) candidates, by mapping; correctness by index + racecheck.
set -u
cd "$(dirname "$0")/../.."
G=build-gpu/s19/fgen; mkdir -p "$OUT"
t0=$(date +%s)
( /usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -DLOOM_ACT=2 -Iruntime -Itests/gpu -I$G/gemm_bias_act_gelu tests/gpu/gemm_bias_act_correctness.cu $G/gemm_bias_act_gelu/gemm_bias_act.cu -lcuda -o /tmp/gba_corr > $OUT/nvcc_corr.log 2>&1; echo "corr nvcc rc=$?" >> $OUT/nvcc_corr.log ) &
OUT="$OUT/bym" LOOM_GEN_DIR=$G LOOM_BUILD_DIR=/tmp/s19/fb timeout 200 bash bench/fused.sh --by-mapping --only gemm_bias_act_gelu \
  --shapes 8192x8192x1024,4096x4096x1024,6144x6144x512,2256x7968x552,3464x4040x1240,4096x4096x4096 > $OUT/fused.log 2>&1
echo "bench rc=$? $(( $(date +%s) - t0 )) s"
wait
tail -1 $OUT/nvcc_corr.log
timeout 30 /tmp/gba_corr > $OUT/corr.log 2>&1; echo "corr rc=$? $(( $(date +%s) - t0 )) s"; tail -3 $OUT/corr.log
timeout 60 /usr/local/cuda/bin/compute-sanitizer --tool racecheck --error-exitcode 99 --print-limit 10 /tmp/gba_corr --only 129x257x65 > $OUT/race.log 2>&1; echo "racecheck rc=$? $(grep SUMMARY $OUT/race.log | tail -1) $(( $(date +%s) - t0 )) s"
grep -E "^\| [0-9]" $OUT/bym/fused.md | head -20
