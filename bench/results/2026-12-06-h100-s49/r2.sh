#!/usr/bin/env bash
# Session 49, device call 2 (carry build-gpu/s49b.tar.xz from prepare2.sh): examples/gemm + tmc.sh's five
# transposed tiles on clusters, now with A's 208- and 104-row boxes shared on 2 x 4 clusters (overlapping bands):
#  1. tests/gpu/gemm_correctness.cu over the 32 mappings (every shape through the pick, every mapping on 4 shapes,
#     tuning, error paths); compute-sanitizer memcheck on mappings 27-31 at 129x257x65 and 1537x1500x700,
#     racecheck and synccheck on 28 and 29 (the overlapping bands) at 129x257x65;
#  2. bench/gemm_mappings.cu (every mapping beside cuBLAS, outputs checked) on session 46's 14 listed shapes, then
#     the 40-shape sweep of seed 20261125 with the time that is left.
set -u
mkdir -p $OUT
tar xJf build-gpu/s49b.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s)
el() { echo "$(( $(date +%s) - start )) s"; }
LIMIT=${LIMIT:-560}
left() { echo $(( LIMIT - ($(date +%s) - start) )); }
T=$(mktemp -d)
C="bash bench/results/2026-12-06-h100-s49/r2.sh"
B=build-gpu/s49b/bin
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 150 $B/gc --skip-large > $OUT/correctness.txt 2>&1; echo "gemm_correctness rc=$? $(el)"; tail -1 $OUT/correctness.txt
grep -c "| ok" $OUT/correctness.txt; grep "FAIL" $OUT/correctness.txt | head -5
for m in 27 28 29 30 31; do for sh in 129x257x65 1537x1500x700; do
  timeout 40 $SAN --tool memcheck --error-exitcode 99 --print-limit 5 $B/gc --only $sh --mapping $m > $T/memcheck-$m-$sh.txt 2>&1
  echo "memcheck m$m $sh rc=$? $(grep -h 'ERROR SUMMARY' $T/memcheck-$m-$sh.txt | tr '\n' ' ')"
done; done; echo "memcheck done $(el)"
for m in 28 29; do for tool in racecheck synccheck; do
  timeout 60 $SAN --tool $tool --error-exitcode 99 --print-limit 5 $B/gc --only 129x257x65 --mapping $m > $T/$tool-$m.txt 2>&1
  echo "$tool m$m rc=$? $(grep -h 'RACECHECK SUMMARY\|ERROR SUMMARY' $T/$tool-$m.txt | tr '\n' ' ')"
done; done; echo "sanitizers done $(el)"
G=$B/gmt
SH=""; for s in 6408x696x7384 408x6896x6408 1880x5120x3840 5968x2448x6416 2232x3288x3296 3464x4040x1240 656x5248x7728 \
  1264x2688x7968 600x1248x4736 505x2856x1048 4959x800x776 977x104x6336 4096x4096x4096 6736x5016x5456; do SH="$SH --shape $s"; done
t=$(left); [ $t -gt 80 ] && t=80
timeout $t $G --out $OUT/tmc2-listed.md $SH --command "$C" > $T/tmc2-listed.log 2>&1; echo "tmc2 listed rc=$? $(el)"
grep -E '^- (pick|tuned|best)' $OUT/tmc2-listed.md
t=$(left)
if [ $t -gt 30 ]; then
  timeout $t $G --out $OUT/tmc2-sweep.md --sweep 40 --sweep-seed 20261125 --command "$C" > $T/tmc2-sweep.log 2>&1
  echo "tmc2 sweep rc=$? $(el)"; grep -E '^- (pick|tuned|best)' $OUT/tmc2-sweep.md
fi
tar czf $OUT/r2-logs.tgz -C $T .
echo "done $(el)"
