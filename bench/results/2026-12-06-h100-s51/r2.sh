#!/usr/bin/env bash
# Session 51, device call 2 (carry build-gpu/s51b.tar.xz from prepare2.sh): add_gemm without the producer's once-per-tile
# wait (the ring chain's release barrier orders the L loop's refills):
#  1. tests/gpu/add_gemm_correctness.cu over ext (16 mappings: the committed 14 + two two-team ones): every shape, every
#     mapping by index; compute-sanitizer memcheck / racecheck / synccheck through the pick and on every mapping by
#     index (as tests/gpu/e2e/add_gemm.sh);
#  2. bench/fused_bench.py add_gemm, old (HEAD's generated code) / new / ext (--by-mapping), each in its own process,
#     listed + 30-shape sweep of seed 20261125.
set -u
mkdir -p $OUT
R=$(mktemp -d)  # logs, returned as one archive
tar xJf build-gpu/s51b.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s); el() { echo "$(( $(date +%s) - start )) s"; }
S=build-gpu/s51b
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
B=$S/bin/add_gemm_e2e
fail=0
timeout 120 $B --bench > $R/e2e.log 2>&1 || fail=1
echo "e2e rc=$fail $(el)"; grep -cE "PASS" $R/e2e.log; grep -E "FAIL" $R/e2e.log | head -5
for tool in memcheck racecheck synccheck; do
  timeout 120 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $B --only 129x257x65x70 > $R/san-$tool-pick.log 2>&1; echo "$tool pick rc=$? $(el)"
  timeout 240 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $B --by-index 129x257x65 > $R/san-$tool-byindex.log 2>&1; echo "$tool by-index rc=$? $(el)"
done
timeout 60 $SAN --tool memcheck --error-exitcode 99 --print-limit 20 $B --only 128x256x64x64 > $R/san-memcheck-tile.log 2>&1; echo "memcheck tile rc=$? $(el)"
tail -2 $R/san-*.log | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|==>" | paste - - | head -12
for v in old new ext; do
  extra=""; [ $v = ext ] && extra="--by-mapping"
  timeout 200 python3 bench/fused_bench.py --lib add_gemm=$S/$v/lib/libadd_gemm.so --sweep 30 --seed 20261125 $extra \
    --out $OUT/ag-$v.md --command "bash bench/results/2026-12-06-h100-s51/r2.sh" > /dev/null 2>&1
  echo "fused $v rc=$? $(el)"; grep -E "^- add_gemm" $OUT/ag-$v.md | head -4
done
tar czf $OUT/r2-logs.tgz -C $R .
echo "done $(el)"
