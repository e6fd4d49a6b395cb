#!/usr/bin/env bash
# Session 49, device call 7 (carry build-gpu/s49f.tar.xz from prepare7.sh): examples/gemm + sw64.sh's four tiles whose
# width is off the 128-byte swizzle atom (B in the 64-byte swizzle), mappings 28-31:
#  1. tests/gpu/gemm_correctness.cu over the 32 mappings; compute-sanitizer memcheck on 28-31 at 129x257x65 and
#     1537x1500x700, racecheck and synccheck on 28 and 30 at 129x257x65;
#  2. bench/gemm_mappings.cu on session 46's 14 listed shapes, then the 40-shape sweep of seed 20261125.
set -u
mkdir -p $OUT
tar xJf build-gpu/s49f.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s)
el() { echo "$(( $(date +%s) - start )) s"; }
LIMIT=${LIMIT:-560}
left() { echo $(( LIMIT - ($(date +%s) - start) )); }
T=$(mktemp -d)
C="bash bench/results/2026-12-06-h100-s49/r7.sh"
B=build-gpu/s49f/bin
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 150 $B/gcs --skip-large > $OUT/correctness.txt 2>&1; echo "gemm_correctness rc=$? $(el)"; tail -1 $OUT/correctness.txt
grep -c "| ok" $OUT/correctness.txt; grep "FAIL" $OUT/correctness.txt | head -5
for m in 28 29 30 31; do for sh in 129x257x65 1537x1500x700; do
  timeout 40 $SAN --tool memcheck --error-exitcode 99 --print-limit 5 $B/gcs --only $sh --mapping $m > $T/memcheck-$m-$sh.txt 2>&1
  echo "memcheck m$m $sh rc=$? $(grep -h 'ERROR SUMMARY' $T/memcheck-$m-$sh.txt | tr '\n' ' ')"
done; done; echo "memcheck done $(el)"
for m in 28 30; do for tool in racecheck synccheck; do
  timeout 60 $SAN --tool $tool --error-exitcode 99 --print-limit 5 $B/gcs --only 129x257x65 --mapping $m > $T/$tool-$m.txt 2>&1
  echo "$tool m$m rc=$? $(grep -h 'RACECHECK SUMMARY\|ERROR SUMMARY' $T/$tool-$m.txt | tr '\n' ' ')"
done; done; echo "sanitizers done $(el)"
G=$B/gms
SH=""; for s in 6408x696x7384 408x6896x6408 1880x5120x3840 5968x2448x6416 2232x3288x3296 3464x4040x1240 656x5248x7728 \
  1264x2688x7968 600x1248x4736 505x2856x1048 4959x800x776 977x104x6336 4096x4096x4096 6736x5016x5456; do SH="$SH --shape $s"; done
t=$(left); [ $t -gt 80 ] && t=80
timeout $t $G --out $OUT/sw64-listed.md $SH --command "$C" > $T/sw64-listed.log 2>&1; echo "sw64 listed rc=$? $(el)"
grep -E '^- (pick|tuned|best)' $OUT/sw64-listed.md
t=$(left)
if [ $t -gt 30 ]; then
  timeout $t $G --out $OUT/sw64-sweep.md --sweep 40 --sweep-seed 20261125 --command "$C" > $T/sw64-sweep.log 2>&1
  echo "sw64 sweep rc=$? $(el)"; grep -E '^- (pick|tuned|best)' $OUT/sw64-sweep.md
fi
tar czf $OUT/r7-logs.tgz -C $T .
echo "done $(el)"
