#!/usr/bin/env bash
# Session 46, device call 3 (carry build-gpu/s46c.tar.xz: bench/gemm_mappings.cu over examples/gemm + streamk.sh's
# candidates, built as in prepare1.sh):
#  1. the 14 listed shapes below (the fused sweeps' losing families, session 45's losing GEMM shapes, two controls);
#  2. the 40-shape sweep of seed 20261125;
#  3. ncu LaunchStats of the cuBLAS kernels torch.mm runs at four of them (cublas_kernels.py);
#  4. examples/gemm_bias_act (gelu_fast, 15 mappings) against the same with regs(24, 160) on its two 192 x 192
#     mappings (docs/mapping.md: the register split that takes their spills out), bymap.py on the 9 shapes where
#     the 192 x 192 tiles were the fastest in r1.
set -u
mkdir -p $OUT
S=build-gpu/s46c
H=bench/results/2026-12-05-h100-s46
tar xJf build-gpu/s46c.tar.xz
start=$(date +%s)
el() { echo "$(( $(date +%s) - start )) s"; }
T=$(mktemp -d)
C="bash $H/r3.sh"
SH=""; for s in 6408x696x7384 408x6896x6408 1880x5120x3840 5968x2448x6416 2232x3288x3296 3464x4040x1240 656x5248x7728 \
  1264x2688x7968 600x1248x4736 505x2856x1048 4959x800x776 977x104x6336 4096x4096x4096 6736x5016x5456; do SH="$SH --shape $s"; done
timeout 120 $S/gm --out $OUT/r3-listed.md $SH --command "$C" > $T/r3-listed.log 2>&1; echo "listed rc=$? $(el)"
grep -E '^- ' $OUT/r3-listed.md
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 120 $NCU --section LaunchStats --metrics gpu__time_duration.sum -k regex:"nvjet|gemm|xmma|cutlass|splitK|reduce|Kernel" \
  python3 $H/cublas_kernels.py 408x6896x6408 6408x696x7384 1880x5120x3840 2232x3288x3296 > $OUT/r3-cublas-ncu.txt 2>&1
echo "ncu rc=$? $(el)"; grep -E "^  [a-zA-Z_]|Grid Size|Cluster Size|Block Size|gpu__time_duration|^[0-9]+x" $OUT/r3-cublas-ncu.txt | head -60
timeout 120 python3 bench/results/2026-12-04-h200-bymap/bymap.py --lib gelu=$S/lib/libg15.so --lib gelu-regs=$S/lib/libg15r.so \
  --labels gelu=$S/gen/g15.labels --labels gelu-regs=$S/gen/g15.labels \
  --shapes 2256x7968x552,5728x4184x6520,5368x3960x7152,7328x5488x7248,6336x608x456,5312x2584x7744,1704x5336x928,5720x2928x6640,2232x3288x3296 \
  --out $OUT/r3-regs.md --command "$C" > $T/r3-regs.log 2>&1
echo "regs rc=$? $(el)"; grep -E "^- [a-z]" $OUT/r3-regs.md
left=$(( 200 - ($(date +%s) - start) ))
timeout $left $S/gm --out $OUT/r3-sweep.md --sweep 40 --sweep-seed 20261125 --command "$C" > $T/r3-sweep.log 2>&1; echo "sweep rc=$? $(el)"
grep -E '^- ' $OUT/r3-sweep.md
tar czf $OUT/r3-logs.tgz -C $T .
echo "done $(el)"
