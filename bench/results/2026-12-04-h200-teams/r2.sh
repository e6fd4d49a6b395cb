#!/usr/bin/env bash
# Device call 2 (session 37), on call 1's warm machine (its binaries in build-gpu/s37/bin): call 1's
# gemm_bench reports for gemm128_opt did not come back (too many files), so both gemm variants are
# timed again in turn (fixed table and the 20-shape sweep, seed 20261204, twice), the gemm_reduce
# timing repeated, and every report packed into one archive.
set -u
cd "$(dirname "$0")/../../.."
B=build-gpu/s37/bin; mkdir -p "$OUT/r2"
for round in 1 2; do
  for v in gemm128_hand gemm128_opt; do
    timeout 200 $B/bench_$v --out $OUT/r2/r2-gemm-$v-table-$round.md --command "bash $0" > /dev/null 2>&1; echo "gemm_bench $v table round $round rc=$?"
    timeout 200 $B/bench_$v --out $OUT/r2/r2-gemm-$v-sweep-$round.md --sweep 20 --sweep-seed 20261204 --command "bash $0" > /dev/null 2>&1; echo "gemm_bench $v sweep round $round rc=$?"
    grep -h "geomean" $OUT/r2/r2-gemm-$v-*-$round.md
  done
done
for round in 1 2; do
  for v in gr_g2_hand gr_g2_opt gr_g1_hand_pp gr_g1_opt; do timeout 60 $B/time_$v $v; done
done > $OUT/r2/r2-gr-time.txt 2>&1
tar -C $OUT -czf $OUT/r2.tar.gz r2 && rm -rf $OUT/r2
