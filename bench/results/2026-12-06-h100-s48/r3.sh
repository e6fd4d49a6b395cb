#!/usr/bin/env bash
# Session 48, device call 3 (carry build-gpu/s48c.tar.xz from prepare3.sh and build-gpu/s47b.tar.xz): the dispatcher's
# L2 bound (each candidate's estimate at least its load_bytes() over 27 bytes per SM and cycle times the SMs).
#  1. bymap.py: examples/gemm_bias_act (GELU, 18 mappings) with the bound against the same library without it
#     (session 47's ext build), pick against pick, cuBLASLt's bias + GELU in the same process, fused_bench's 5
#     listed shapes and 30-shape sweep (seed 20261125), outputs checked against fp32;
#  2. examples/gemm with the bound (bench/gemm_mappings.cu, 27 mappings: every mapping, the pick, cuBLAS) on the 14
#     listed shapes and the 40-shape sweep of seed 20261125 (r1 timed the same mappings without the bound).
set -u
mkdir -p $OUT
tar xJf build-gpu/s48c.tar.xz; [ -d build-gpu/s47b/ext/lib ] || tar xJf build-gpu/s47b.tar.xz
start=$(date +%s)
el() { echo "$(( $(date +%s) - start )) s"; }
C="bash bench/results/2026-12-06-h100-s48/r3.sh"
SHAPES=2048x2048x2048,4096x4096x4096,8192x8192x8192,4096x14336x4096,8192x8192x1024,7168x7760x328,2832x3960x4848,2256x7968x552,4520x3504x1736,5728x4184x6520,1264x2688x7968,5368x3960x7152,6408x696x7384,5264x7640x7224,5448x6448x2800,7328x5488x7248,6336x608x456,5312x2584x7744,6192x5624x4888,1704x5336x928,2232x2520x3816,5720x2928x6640,2232x3288x3296,5968x2448x6416,5096x6688x2936,408x6896x6408,6456x2912x5496,5304x6224x3864,3464x4040x1240,6024x3896x1488,2112x3648x3848,1880x5120x3840,656x5248x7728,7824x7424x6296,5536x1880x2736
timeout 90 python3 bench/results/2026-12-04-h200-bymap/bymap.py --lib gelu=build-gpu/s48c/lib/libgemm_bias_act_gelu.so --pick-only gelu \
  --lib gelu-old=build-gpu/s47b/ext/lib/libgemm_bias_act_gelu.so --pick-only gelu-old --shapes $SHAPES \
  --out $OUT/gba-l2.md --command "$C" > $OUT/gba-l2.log 2>&1
echo "gba bymap rc=$? $(el)"; grep -E "^- " $OUT/gba-l2.md
SH=""; for s in 6408x696x7384 408x6896x6408 1880x5120x3840 5968x2448x6416 2232x3288x3296 3464x4040x1240 656x5248x7728 \
  1264x2688x7968 600x1248x4736 505x2856x1048 4959x800x776 977x104x6336 4096x4096x4096 6736x5016x5456; do SH="$SH --shape $s"; done
timeout 60 build-gpu/s48c/bin/gm --out $OUT/gemm-l2-listed.md $SH --command "$C" > $OUT/gemm-l2-listed.log 2>&1; echo "gemm listed rc=$? $(el)"
grep -E '^- (pick|tuned|best)' $OUT/gemm-l2-listed.md
left=$(( 215 - ($(date +%s) - start) ))
[ $left -gt 20 ] && { timeout $left build-gpu/s48c/bin/gm --out $OUT/gemm-l2-sweep.md --sweep 40 --sweep-seed 20261125 --command "$C" > $OUT/gemm-l2-sweep.log 2>&1; echo "gemm sweep rc=$? $(el)"; grep -E '^- (pick|tuned|best)' $OUT/gemm-l2-sweep.md; }
echo "done $(el)"
