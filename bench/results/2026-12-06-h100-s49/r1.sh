#!/usr/bin/env bash
# Session 49, device call 1 (carry build-gpu/s47b.tar.xz from session 47's prepare2-base.sh + prepare2.sh, and
# build-gpu/s49.tar.xz from prepare.sh here):
#  1. session 48's r4.sh: add_gemm (now committed with the three cluster mappings) mapping by mapping and through
#     the pick on the multi-wave shapes where r1 of session 48 saw it slower, against torch's two GEMMs + add;
#  2. examples/gemm + tmc.sh's five transposed tiles on clusters (bench/gemm_mappings.cu: every mapping beside
#     cuBLAS, outputs checked) on session 46's 14 listed shapes, then the 40-shape sweep of seed 20261125 with the
#     time that is left.
set -u
mkdir -p $OUT
tar xJf build-gpu/s49.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s)
el() { echo "$(( $(date +%s) - start )) s"; }
LIMIT=${LIMIT:-540}
left() { echo $(( LIMIT - ($(date +%s) - start) )); }
T=$(mktemp -d)
C="bash bench/results/2026-12-06-h100-s49/r1.sh"
bash bench/results/2026-12-06-h100-s48/r4.sh; echo "s48 r4 done $(el)"
G=build-gpu/s49/bin/gmt
SH=""; for s in 6408x696x7384 408x6896x6408 1880x5120x3840 5968x2448x6416 2232x3288x3296 3464x4040x1240 656x5248x7728 \
  1264x2688x7968 600x1248x4736 505x2856x1048 4959x800x776 977x104x6336 4096x4096x4096 6736x5016x5456; do SH="$SH --shape $s"; done
t=$(left); [ $t -gt 110 ] && t=110
timeout $t $G --out $OUT/tmc-listed.md $SH --command "$C" > $T/tmc-listed.log 2>&1; echo "tmc listed rc=$? $(el)"
grep -E '^- (pick|tuned|best)' $OUT/tmc-listed.md
t=$(left)
if [ $t -gt 30 ]; then
  timeout $t $G --out $OUT/tmc-sweep.md --sweep 40 --sweep-seed 20261125 --command "$C" > $T/tmc-sweep.log 2>&1
  echo "tmc sweep rc=$? $(el)"; grep -E '^- (pick|tuned|best)' $OUT/tmc-sweep.md
fi
tar czf $OUT/r1-logs.tgz -C $T .
echo "done $(el)"
