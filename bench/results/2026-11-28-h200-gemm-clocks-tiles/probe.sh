#!/usr/bin/env bash
# Session 22 round 1 (device): clocks and power while each GEMM mapping runs back to back.
# bash bench/results/2026-11-28-h200-gemm-clocks-tiles/probe.sh BIN  (BIN from probe.cu; writes to $OUT)
set -u
bin=$1
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE > $OUT/smi-before.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv,nounits -lms 100 > $OUT/smi.csv 2>&1 &
smi=$!
sleep 1
for shape in "8192 8192 8192" "4096 4096 4096"; do
  $bin $shape 4 1.5 m0 m6 cublas m0 m6 m1 cublas | tee -a $OUT/probe.txt
done
sleep 0.5; kill $smi
python3 "$(dirname "$0")/clocks_table.py" "$OUT"
