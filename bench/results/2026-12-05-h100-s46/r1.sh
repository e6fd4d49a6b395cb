#!/usr/bin/env bash
# Session 46, device call 1 (carry build-gpu/s46.tar.xz, built on the development machine by prepare1.sh):
#  1. correctness of examples/gemm_bias_act (gelu_fast) with six candidate mappings appended (gba_cands.sh):
#     every shape through the pick and every mapping by index; memcheck + racecheck by index at 129x257x65;
#  2. the pending GPU checks of session 45: e2e of gemm with kteams(2) (tests/gpu/e2e/gemm_alternate.sh's
#     steps) and examples/gemm's mapping 23 under memcheck/racecheck/synccheck at 1000^3;
#  3. bymap.py: gemm_bias_act gelu_fast, committed (pick) against the extended set (pick and every mapping),
#     cuBLAS and cuBLASLt's bias + GELU, on fused_bench's 5 listed shapes and 30-shape sweep (seed 20261125);
#  4. examples/gemm + tile widths 112 / 176 / 96 / 104 (widths.sh) on the 11 listed shapes of session 45.
set -u
mkdir -p $OUT
S=build-gpu/s46
H=bench/results/2026-12-05-h100-s46
tar xJf build-gpu/s46.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
start=$(date +%s)
el() { echo "$(( $(date +%s) - start )) s"; }
timeout 60 $S/bin/gba_ext > $OUT/gba-correctness.txt 2>&1; echo "gba_ext rc=$? $(el)"; tail -3 $OUT/gba-correctness.txt
for tool in memcheck racecheck; do
  timeout 60 $SAN --tool $tool --error-exitcode 99 --print-limit 10 $S/bin/gba_ext --by-index 129x257x65 > $OUT/gba-$tool.txt 2>&1
  echo "gba $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/gba-$tool.txt | sort | uniq -c | tr '\n' ' ') $(el)"
done
timeout 60 $S/bin/gemm_kteams --skip-large > $OUT/kteams-e2e.txt 2>&1; echo "kteams e2e rc=$? $(el)"; tail -2 $OUT/kteams-e2e.txt
for tool in memcheck racecheck synccheck; do
  for shape in 129x257x65 4959x800x776; do
    timeout 60 $SAN --tool $tool --error-exitcode 99 --print-limit 10 $S/bin/gemm_kteams --only $shape > $OUT/kteams-$tool-$shape.txt 2>&1
    echo "kteams $tool $shape rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/kteams-$tool-$shape.txt | tail -1) $(el)"
  done
  timeout 60 $SAN --tool $tool --error-exitcode 99 --print-limit 10 $S/bin/gemm_e2e --only 1000x1000x1000 --mapping 23 --runs 1 > $OUT/m23-$tool.txt 2>&1
  echo "gemm m23 $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/m23-$tool.txt | tail -1) $(el)"
done
SHAPES=2048x2048x2048,4096x4096x4096,8192x8192x8192,4096x14336x4096,8192x8192x1024,7168x7760x328,2832x3960x4848,2256x7968x552,4520x3504x1736,5728x4184x6520,1264x2688x7968,5368x3960x7152,6408x696x7384,5264x7640x7224,5448x6448x2800,7328x5488x7248,6336x608x456,5312x2584x7744,6192x5624x4888,1704x5336x928,2232x2520x3816,5720x2928x6640,2232x3288x3296,5968x2448x6416,5096x6688x2936,408x6896x6408,6456x2912x5496,5304x6224x3864,3464x4040x1240,6024x3896x1488,2112x3648x3848,1880x5120x3840,656x5248x7728,7824x7424x6296,5536x1880x2736
timeout 240 python3 bench/results/2026-12-04-h200-bymap/bymap.py --lib gelu=$S/lib/libgelu-fast.so --pick-only gelu \
  --lib gelu-ext=$S/lib/libgelu-fast-ext.so --labels gelu-ext=$S/gen/gba_ext.labels --shapes $SHAPES \
  --out $OUT/bymap.md --command "bash $H/r1.sh" > $OUT/bymap.log 2>&1
echo "bymap rc=$? $(el)"; grep -E "^- [a-zA-Z]" $OUT/bymap.md
C="bash $H/r1.sh"
SH="--shape 600x1248x4736 --shape 487x1688x7536 --shape 505x2856x1048 --shape 977x104x6336 --shape 77x1696x1128 --shape 4959x800x776 --shape 4664x104x1320 --shape 2232x3288x3296 --shape 6736x5016x5456 --shape 3520x1760x1552 --shape 768x3168x3304"
left=$(( 570 - ($(date +%s) - start) ))
timeout $left $S/gm --out $OUT/widths-listed.md $SH --command "$C" > $OUT/widths-listed.log 2>&1; echo "widths listed rc=$? $(el)"
gzip -f $OUT/*.log $OUT/*-racecheck*.txt 2>/dev/null
echo "done $(el)"
