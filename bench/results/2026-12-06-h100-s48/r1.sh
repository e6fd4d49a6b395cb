#!/usr/bin/env bash
# Session 48, device call 1 (carry build-gpu/s47b.tar.xz from bench/results/2026-12-06-h100-s47/prepare2-base.sh +
# prepare2.sh, and build-gpu/s48.tar.xz from prepare.sh here):
#  1. session 47's r2.sh without its last step (SKIP_GEMM=1; its logs in r2-logs.tgz): bench/fused_bench.py on the committed gemm_bias_act (gelu, gelu_fast) and
#     add_gemm, then the same with the three cluster mappings appended (s47's cands.sh), each against its peers in the
#     same process: 5 listed shapes + the 30-shape sweep (seed 20261125); correctness (every shape through the pick,
#     every mapping by index) and compute-sanitizer memcheck (every mapping by index at 129x257x65) of the extended
#     gemm_bias_act (gelu_fast) and add_gemm;
#  2. examples/gemm + widths.sh's five 208- / 224-wide candidates (bench/gemm_mappings.cu: every mapping beside
#     cuBLAS, outputs checked) on session 46's 14 listed shapes, then the 40-shape sweep of seed 20261125 with the
#     time that is left.
set -u
mkdir -p $OUT
S7=bench/results/2026-12-06-h100-s47
tar xJf build-gpu/s47b.tar.xz; tar xJf build-gpu/s48.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s)
el() { echo "$(( $(date +%s) - start )) s"; }
LIMIT=${LIMIT:-540}
left() { echo $(( LIMIT - ($(date +%s) - start) )); }
T=$(mktemp -d)
C="bash bench/results/2026-12-06-h100-s48/r1.sh"
t=$(( LIMIT - 90 )); [ $t -gt 330 ] && t=330
SKIP_GEMM=1 timeout $t bash $S7/r2.sh; echo "s47 r2 rc=$? $(el)"
G=build-gpu/s48/bin/gmw
SH=""; for s in 6408x696x7384 408x6896x6408 1880x5120x3840 5968x2448x6416 2232x3288x3296 3464x4040x1240 656x5248x7728 \
  1264x2688x7968 600x1248x4736 505x2856x1048 4959x800x776 977x104x6336 4096x4096x4096 6736x5016x5456; do SH="$SH --shape $s"; done
t=$(left); [ $t -gt 100 ] && t=100
timeout $t $G --out $OUT/widths-listed.md $SH --command "$C" > $T/widths-listed.log 2>&1; echo "widths listed rc=$? $(el)"
grep -E '^- (pick|tuned|best)' $OUT/widths-listed.md
t=$(left)
if [ $t -gt 30 ]; then
  timeout $t $G --out $OUT/widths-sweep.md --sweep 40 --sweep-seed 20261125 --command "$C" > $T/widths-sweep.log 2>&1
  echo "widths sweep rc=$? $(el)"; grep -E '^- (pick|tuned|best)' $OUT/widths-sweep.md
fi
tar czf $OUT/r1-logs.tgz -C $T .
echo "done $(el)"
