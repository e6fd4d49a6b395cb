#!/usr/bin/env bash
# Session 47, device call 1 (carry build-gpu/s46c.tar.xz from bench/results/2026-12-05-h100-s46/prepare3.sh and
# build-gpu/s47.tar.xz from prepare1.sh here):
#  1. session 46's r3.sh as prepared (examples/gemm + stream-K / multicast(4, x) / (x, 4) / transposed candidates on
#     14 shapes and the 40-shape sweep; ncu LaunchStats of cuBLAS's kernels; regs(24, 160) on gemm_bias_act's 192 x 192);
#  2. the bias prefetch: examples/gemm_bias_act (gelu_fast) as committed (s46c's libg15.so) against the same with
#     the tile's bias prefetched into L1 before the K loop (libg15p.so), launcher's pick against launcher's pick (the
#     same mapping: the cost model did not change), cuBLASLt's bias + GELU in the same process, on fused_bench's 5
#     listed shapes and 30-shape sweep (seed 20261125), every output checked against an fp32 reference;
#  3. the prefetching kernels' correctness (every shape through the pick, every mapping by index) and
#     compute-sanitizer memcheck on every mapping by index at 129x257x65 (the prefetch touches no shared memory).
# Steps 2-3 run first (they decide this session's change), then step 1.
set -u
mkdir -p $OUT
H=bench/results/2026-12-06-h100-s47
tar xJf build-gpu/s47.tar.xz; tar xJf build-gpu/s46c.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s)
el() { echo "$(( $(date +%s) - start )) s"; }
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SHAPES=2048x2048x2048,4096x4096x4096,8192x8192x8192,4096x14336x4096,8192x8192x1024,7168x7760x328,2832x3960x4848,2256x7968x552,4520x3504x1736,5728x4184x6520,1264x2688x7968,5368x3960x7152,6408x696x7384,5264x7640x7224,5448x6448x2800,7328x5488x7248,6336x608x456,5312x2584x7744,6192x5624x4888,1704x5336x928,2232x2520x3816,5720x2928x6640,2232x3288x3296,5968x2448x6416,5096x6688x2936,408x6896x6408,6456x2912x5496,5304x6224x3864,3464x4040x1240,6024x3896x1488,2112x3648x3848,1880x5120x3840,656x5248x7728,7824x7424x6296,5536x1880x2736
timeout 200 python3 bench/results/2026-12-04-h200-bymap/bymap.py --lib gelu=build-gpu/s46c/lib/libg15.so --pick-only gelu \
  --lib gelu-pf=build-gpu/s47/lib/libg15p.so --pick-only gelu-pf --shapes $SHAPES \
  --out $OUT/pf.md --command "bash $H/r1.sh" > $T/pf.log 2>&1
echo "prefetch bymap rc=$? $(el)"; grep -E "^- [a-zA-Z]" $OUT/pf.md
timeout 60 build-gpu/s47/bin/gba_pf > $T/gba-pf-correctness.txt 2>&1; echo "gba_pf rc=$? $(el)"; tail -2 $T/gba-pf-correctness.txt
for tool in memcheck; do
  timeout 90 $SAN --tool $tool --error-exitcode 99 --print-limit 10 build-gpu/s47/bin/gba_pf --by-index 129x257x65 > $T/gba-pf-$tool.txt 2>&1
  echo "gba_pf $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/gba-pf-$tool.txt | sort | uniq -c | tr '\n' ' ') $(el)"
done
tar czf $OUT/s47-logs.tgz -C $T .
echo "s47 part done $(el)"
bash bench/results/2026-12-05-h100-s46/r3.sh
