#!/usr/bin/env bash
# Session 20, round 1: exp2 on two units (MUFU + FP32 pipe) in FA2, ex2_fma's accuracy, ncu source counters.
set -u
export PATH=/usr/local/cuda/bin:$PATH
S=build-gpu/s20
O=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
date -u
echo "== softmax_atoms (ex2_approx, ex2_fma)"
timeout 60 $S/bin/softmax_atoms 2>&1 | tail -4
for v in flash_attention_2 flash_attention_2_e2; do
  for sh in 1x77x77x64 2x200x300x64 3x1000x64x64 1x128x1000x64 4x1024x1024x64 1x77x77x128 2x200x300x128 4x1024x1024x128 1x4096x4096x128; do
    timeout 20 $S/bin/ac_$v --only $sh --seed 7 > /tmp/ac.log 2>&1; rc=$?
    echo "$v $sh: rc=$rc $(tail -1 /tmp/ac.log)"
    [ $rc = 124 ] && { echo "TIMEOUT: stopping"; exit 1; }
  done
done
date -u
echo "== bench"
LOOM_GEN_DIR=$S/gen LOOM_BUILD_DIR=/tmp/lb OUT=$O timeout 420 bash bench/attention.sh --no-causal --reps 20 2>&1 | tail -25
date -u
echo "== ncu"
for v in flash_attention_2; do
  timeout 120 ncu --section SourceCounters --section WarpStateStats --section SpeedOfLight -k regex:mha_kernel -c 1 \
    -o $O/ncu_$v $S/bin/ac_$v --only 8x4096x4096x64 --seed 1 > $O/ncu_$v.log 2>&1; tail -3 $O/ncu_$v.log
  ncu -i $O/ncu_$v.ncu-rep --page source --csv --print-source sass > $O/src_$v.csv 2>$O/src_$v.err || ncu -i $O/ncu_$v.ncu-rep --page source --csv > $O/src_$v.csv 2>>$O/src_$v.err
  ncu -i $O/ncu_$v.ncu-rep --page details > $O/details_$v.txt 2>&1
  ls -la $O; head -c 600 $O/src_$v.csv; tail -3 $O/src_$v.err
done
date -u
