#!/usr/bin/env bash
# Session 49, device call 3 (carry build-gpu/s49c.tar.xz from prepare3.sh):
#  1. gemm_bias_act (GELU) with gba_tmc.sh's transposed variants and the 208 x 128 tiles on 2 x 4 clusters (ext, 19
#     mappings): tests/gpu/gemm_bias_act_correctness.cu (every shape through the pick, every mapping by index), and
#     compute-sanitizer memcheck on every mapping by index at 129x257x65;
#  2. bench/fused_bench.py, the committed gemm_bias_act (base) then ext, each against cuBLASLt's bias + GELU and
#     torch in the same process: 5 listed shapes + the 30-shape sweep (seed 20261125);
#  3. examples/gemm (28 mappings) + tmc3.sh's four transposed tiles on 1 x 2 clusters (bench/gemm_mappings.cu) on
#     session 46's 14 listed shapes, then the 40-shape sweep of seed 20261125 with the time that is left.
set -u
mkdir -p $OUT
tar xJf build-gpu/s49c.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s)
el() { echo "$(( $(date +%s) - start )) s"; }
LIMIT=${LIMIT:-560}
left() { echo $(( LIMIT - ($(date +%s) - start) )); }
T=$(mktemp -d)
C="bash bench/results/2026-12-06-h100-s49/r3.sh"
S=build-gpu/s49c
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 60 $S/bin/gba_ext > $OUT/gba-ext-correctness.txt 2>&1; echo "gba_ext rc=$? $(el)"; tail -1 $OUT/gba-ext-correctness.txt
timeout 60 $SAN --tool memcheck --error-exitcode 99 --print-limit 10 $S/bin/gba_ext --by-index 129x257x65 > $T/gba-ext-memcheck.txt 2>&1
echo "gba_ext memcheck rc=$? $(grep -E 'ERROR SUMMARY' $T/gba-ext-memcheck.txt | sort | uniq -c | tr '\n' ' ') $(el)"
for v in base ext; do
  timeout 130 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$S/$v/lib/libgemm_bias_act_gelu.so --sweep 30 \
    --out $OUT/gba-$v.md --command "$C" > $T/gba-$v.log 2>&1
  echo "gba $v rc=$? $(el)"; grep -iE "vs cuBLASLt" $OUT/gba-$v.md | head -4
done
G=$S/bin/gm3
SH=""; for s in 6408x696x7384 408x6896x6408 1880x5120x3840 5968x2448x6416 2232x3288x3296 3464x4040x1240 656x5248x7728 \
  1264x2688x7968 600x1248x4736 505x2856x1048 4959x800x776 977x104x6336 4096x4096x4096 6736x5016x5456; do SH="$SH --shape $s"; done
t=$(left); [ $t -gt 80 ] && t=80
timeout $t $G --out $OUT/tmc3-listed.md $SH --command "$C" > $T/tmc3-listed.log 2>&1; echo "tmc3 listed rc=$? $(el)"
grep -E '^- (pick|tuned|best)' $OUT/tmc3-listed.md
t=$(left)
if [ $t -gt 30 ]; then
  timeout $t $G --out $OUT/tmc3-sweep.md --sweep 40 --sweep-seed 20261125 --command "$C" > $T/tmc3-sweep.log 2>&1
  echo "tmc3 sweep rc=$? $(el)"; grep -E '^- (pick|tuned|best)' $OUT/tmc3-sweep.md
fi
tar czf $OUT/r3-logs.tgz -C $T .
echo "done $(el)"
