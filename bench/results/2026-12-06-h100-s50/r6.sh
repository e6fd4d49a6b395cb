#!/usr/bin/env bash
# Session 50, device call 6 (carry build-gpu/s50c.tar.xz, build-gpu/s50e.tar.xz): a fresh seed (20261206) for the
# two-team 128 x 192 tiles: gemm_bias_act (GELU) with gba_alt.loom.part's four mappings (23), every mapping by index on
# the 5 listed + 30 sweep shapes of seed 20261206 beside cuBLASLt, and the cost model's estimates of every mapping at
# those shapes on this GPU (est.cu, cluster_slots answered by the device), for replaying the launcher's pick over
# subsets of the mappings.
set -u
mkdir -p $OUT
tar xJf build-gpu/s50c.tar.xz; tar -C build-gpu -xJf build-gpu/s50e.tar.xz
./build-gpu/s50e/est < build-gpu/s50e/shapes-fresh.txt > $OUT/est-h100-fresh.txt; echo "est rc=$?"
start=$(date +%s)
timeout 400 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=build-gpu/s50c/alt/lib/libgemm_bias_act_gelu.so --by-mapping \
  --sweep 30 --seed 20261206 --out $OUT/gba-alt-bymap-fresh.md --command "bash bench/results/2026-12-06-h100-s50/r6.sh" > $OUT/gba-alt-bymap-fresh.log 2>&1
echo "gba bymap rc=$? $(( $(date +%s) - start )) s"; grep -iE "vs cuBLASLt" $OUT/gba-alt-bymap-fresh.md | head -3
