#!/usr/bin/env bash
# Session 22 round 4 (device): gemm_p4.loom (examples/gemm + m0, m9, m10, m12 with 4-deep rings as
# m13-m16): every mapping timed on its own over the fixed table and the GEMM sweep (seed 20261125);
# then sustained (4 s) runs of m0, m13, m6 and cuBLAS at 8192^3 and 4096x14336x4096 with clocks.
set -u
cd "$(dirname "$0")/../../.."
B=build-gpu/s22; mkdir -p "$OUT"
timeout 200 $B/gm_p4 --out $OUT/r4-p4-table.md --command "bash bench/results/2026-11-28-h200-gemm-clocks-tiles/r4.sh" > $OUT/r4-table.log 2>&1; echo "table rc=$?"
timeout 280 $B/gm_p4 --out $OUT/r4-p4-sweep.md --sweep 40 --sweep-seed 20261125 --command "bash bench/results/2026-11-28-h200-gemm-clocks-tiles/r4.sh" > $OUT/r4-sweep.log 2>&1; echo "sweep rc=$?"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv,nounits -lms 100 > $OUT/smi.csv 2>&1 &
smi=$!
sleep 1
for shape in "8192 8192 8192" "4096 14336 4096"; do $B/probe_p4 $shape 3 1 m0 m13 m6 cublas | tee -a $OUT/probe.txt; done
kill $smi
python3 bench/results/2026-11-28-h200-gemm-clocks-tiles/clocks_table.py $OUT | tee $OUT/r4-clocks.md; rm -f $OUT/smi.csv
