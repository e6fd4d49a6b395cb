#!/usr/bin/env bash
# Session 52, device call 4 (carry build-gpu/s52c.tar.xz from prepare4.sh and session 51's build-gpu/s51b.tar.xz):
# add_gemm with the consumers going straight from the K loop into the L loop:
#  1. tests/gpu/add_gemm_correctness.cu (14 committed + 2 two-team mappings): every shape, every mapping by index;
#     compute-sanitizer racecheck through the pick (129x257x65x70) and every mapping by index (129x257x65);
#  2. bench/fused_bench.py add_gemm: old (session 51's new, HEAD before this change) / new, alternating, listed + the
#     30-shape sweep of seed 20261206, then of 20261125 while R4_LIMIT seconds (default 400) have not passed.
set -u
mkdir -p $OUT
R=$(mktemp -d)
tar xJf build-gpu/s52c.tar.xz; tar xJf build-gpu/s51b.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s); el() { echo "$(( $(date +%s) - start )) s"; }
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
B=build-gpu/s52c/bin/add_gemm_e2e
timeout 120 $B --bench > $R/e2e.log 2>&1; echo "e2e rc=$? $(el)"; grep -cE "PASS" $R/e2e.log; grep -E "FAIL" $R/e2e.log | head -5
timeout 90 $SAN --tool racecheck --error-exitcode 99 --print-limit 20 $B --only 129x257x65x70 > $R/san-racecheck-pick.log 2>&1; echo "racecheck pick rc=$? $(el)"
timeout 100 $SAN --tool racecheck --error-exitcode 99 --print-limit 20 $B --by-index 129x257x65 > $R/san-racecheck-byindex.log 2>&1; echo "racecheck by-index rc=$? $(el)"
tail -2 $R/san-*.log | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|==>" | paste - - | head -12
for seed in 20261206 20261125; do
  [ $(( $(date +%s) - start )) -gt ${R4_LIMIT:-400} ] && break
  for v in old new; do
    L=build-gpu/s52c/new/lib/libadd_gemm.so; [ $v = old ] && L=build-gpu/s51b/new/lib/libadd_gemm.so
    timeout 80 python3 bench/fused_bench.py --lib add_gemm=$L --sweep 30 --seed $seed \
      --out $OUT/ag-$v-$seed.md --command "bash bench/results/2026-12-06-h100-s52/r4.sh" > /dev/null 2>&1
    echo "fused $v $seed rc=$? $(el)"; grep -E "^- add_gemm, (listed|sweep) vs torch unfused" $OUT/ag-$v-$seed.md
  done
done
tar cJf $OUT/r4-logs.tar.xz -C $R .
echo "done $(el)"
