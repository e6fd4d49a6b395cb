#!/usr/bin/env bash
# On the development machine: the single-mapping programs (variants.py) compiled by loom into
# build-gpu/s37/gen (carried to the device), with the compile time of each.
set -eu
S=build-gpu/s37
H=bench/results/2026-12-04-h200-teams
L=${LOOM:-build/loom}
mkdir -p $S/gen
python3 $H/variants.py > /dev/null
for v in gr_g2_hand gr_g2_opt gr_g1_hand_pp gr_g1_opt gemm128_hand gemm128_opt; do
  /usr/bin/time -f "$v: loom compile %e s" $L compile $H/$v.loom -o $S/gen/$v
  $L compile $H/$v.loom --emit=schedule > $S/gen/$v.schedule.txt 2>&1 || true
done
