#!/usr/bin/env bash
# Session 50, device call 9 (carry build-gpu/s50h.tar.xz from prepare9.sh): examples/gemm + two two-team mappings (30)
# through bench/gemm_mappings.cu (every mapping timed on its own beside cuBLAS, every output checked, the cost model's
# estimates printed): session 46's 14 listed shapes, the 40-shape sweeps of seeds 20261125 and 20261206.
set -u
mkdir -p $OUT
tar xJf build-gpu/s50h.tar.xz
start=$(date +%s)
el() { echo "$(( $(date +%s) - start )) s"; }
C="bash bench/results/2026-12-06-h100-s50/r9.sh"
G=build-gpu/s50h/bin/gm30
SH=""; for s in 6408x696x7384 408x6896x6408 1880x5120x3840 5968x2448x6416 2232x3288x3296 3464x4040x1240 656x5248x7728 \
  1264x2688x7968 600x1248x4736 505x2856x1048 4959x800x776 977x104x6336 4096x4096x4096 6736x5016x5456; do SH="$SH --shape $s"; done
timeout 90 $G --out $OUT/gm30-listed.md $SH --command "$C" > $OUT/gm30-listed.log 2>&1; echo "gm30 listed rc=$? $(el)"
grep -E '^- (pick|best)' $OUT/gm30-listed.md
for seed in 20261125 20261206; do
  timeout 170 $G --out $OUT/gm30-sweep-$seed.md --sweep 40 --sweep-seed $seed --command "$C" > $OUT/gm30-sweep-$seed.log 2>&1
  echo "gm30 sweep $seed rc=$? $(el)"; grep -E '^- (pick|best)' $OUT/gm30-sweep-$seed.md
done
