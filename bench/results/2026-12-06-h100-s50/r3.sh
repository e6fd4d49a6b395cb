#!/usr/bin/env bash
# Session 50, device call 3 (carry build-gpu/s50c.tar.xz from prepare3.sh): gemm_bias_act (GELU) with four
# two-team mappings appended (gba_alt.loom.part; 23 mappings): correctness (every shape through the pick, every
# mapping by index; memcheck by index at 129x257x65), then every mapping by index on the 5 listed + 30 sweep
# shapes (seed 20261125) beside cuBLASLt's bias + GELU, in one process.
set -u
mkdir -p $OUT
tar xJf build-gpu/s50c.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s)
timeout 120 build-gpu/s50c/bin/gba_alt > $OUT/gba-alt-correctness.txt 2>&1; echo "correctness rc=$? $(( $(date +%s) - start )) s"
tail -2 $OUT/gba-alt-correctness.txt
timeout 150 compute-sanitizer --tool memcheck build-gpu/s50c/bin/gba_alt --by-index 129x257x65 > $OUT/gba-alt-memcheck.txt 2>&1
echo "memcheck rc=$? $(( $(date +%s) - start )) s"; grep -E "ERROR SUMMARY|PASS|FAIL" $OUT/gba-alt-memcheck.txt | tail -2
timeout 300 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=build-gpu/s50c/alt/lib/libgemm_bias_act_gelu.so --by-mapping \
  --sweep 30 --out $OUT/gba-alt-bymap.md --command "bash bench/results/2026-12-06-h100-s50/r3.sh" > $OUT/gba-alt-bymap.log 2>&1
echo "gba bymap rc=$? $(( $(date +%s) - start )) s"; grep -iE "vs cuBLASLt" $OUT/gba-alt-bymap.md | head -3
