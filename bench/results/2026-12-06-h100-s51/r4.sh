#!/usr/bin/env bash
# Session 51, device call 4 (carry build-gpu/s51b.tar.xz from prepare2.sh): add_gemm with and without the producer's
# once-per-tile wait on shapes r2 did not see (the listed 5 and the 30-shape sweep of seed 20261206), each library in
# its own process, new then old (the device time left allowed two runs).
set -u
mkdir -p $OUT
tar xJf build-gpu/s51b.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s); el() { echo "$(( $(date +%s) - start )) s"; }
S=build-gpu/s51b
i=0
for v in new old; do
  i=$((i + 1))
  timeout 80 python3 bench/fused_bench.py --lib add_gemm=$S/$v/lib/libadd_gemm.so --sweep 30 --seed 20261206 \
    --out $OUT/ag-$v-$i.md --command "bash bench/results/2026-12-06-h100-s51/r4.sh" > /dev/null 2>&1
  echo "fused $v ($i) rc=$? $(el)"; grep -E "^- add_gemm, (listed|sweep) vs torch unfused" $OUT/ag-$v-$i.md
done
echo "done $(el)"
