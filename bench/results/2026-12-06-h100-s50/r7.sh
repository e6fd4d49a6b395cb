#!/usr/bin/env bash
# Session 50, device call 7 (carry build-gpu/s50f.tar.xz from prepare7.sh): relu_gemm with two two-team mappings
# appended (relu_alt.loom.part; 14): correctness (every shape through the pick, every mapping by index; memcheck by
# index at 129x257x65), every mapping by index on the 5 listed + 30 sweep shapes (seed 20261125) beside torch's relu +
# GEMM in one process, and the cost model's estimates at those shapes on this GPU (est7).
set -u
mkdir -p $OUT
tar xJf build-gpu/s50f.tar.xz
start=$(date +%s)
./build-gpu/s50f/bin/est7 < build-gpu/s50f/shapes.txt > $OUT/relu-est-h100.txt; echo "est rc=$?"
timeout 120 build-gpu/s50f/bin/relu_alt > $OUT/relu-alt-correctness.txt 2>&1; echo "correctness rc=$? $(( $(date +%s) - start )) s"
tail -1 $OUT/relu-alt-correctness.txt
timeout 120 compute-sanitizer --tool memcheck build-gpu/s50f/bin/relu_alt --by-index 129x257x65 > $OUT/relu-alt-memcheck.txt 2>&1
echo "memcheck rc=$? $(( $(date +%s) - start )) s"; grep -E "ERROR SUMMARY" $OUT/relu-alt-memcheck.txt | tail -1
timeout 330 python3 bench/fused_bench.py --lib relu_gemm=build-gpu/s50f/alt/lib/librelu_gemm.so --by-mapping --sweep 30 \
  --sweep-cases relu_gemm --only relu_gemm --out $OUT/relu-alt-bymap.md --command "bash bench/results/2026-12-06-h100-s50/r7.sh" > $OUT/relu-alt-bymap.log 2>&1
echo "relu bymap rc=$? $(( $(date +%s) - start )) s"; grep -iE "relu_gemm, (listed|sweep)" $OUT/relu-alt-bymap.md | head -4
