#!/usr/bin/env bash
# Session 46, device call 2 (carry build-gpu/s46b.tar.xz from prepare2.sh):
#  1. bench/gemm_mappings.cu: examples/gemm + widths.sh's candidates (m24-m29) on session 45's 11 listed shapes
#     (r1's table did not come back);
#  2. bench/fused_bench.py, the acceptance's table on the H100: gemm_bias_act (gelu, gelu_fast; 15 mappings since this
#     session) and add_gemm over the listed shapes and the 30-shape sweep (seed 20261125), relu_gemm listed;
#  3. the same for dual_gemm, gemm_reduce (both mappings) and gemm_residual, listed shapes.
set -u
mkdir -p $OUT
S=build-gpu/s46b
H=bench/results/2026-12-05-h100-s46
tar xJf build-gpu/s46b.tar.xz
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s)
el() { echo "$(( $(date +%s) - start )) s"; }
T=$(mktemp -d)
C="bash $H/r2.sh"
SH="--shape 600x1248x4736 --shape 487x1688x7536 --shape 505x2856x1048 --shape 977x104x6336 --shape 77x1696x1128 --shape 4959x800x776 --shape 4664x104x1320 --shape 2232x3288x3296 --shape 6736x5016x5456 --shape 3520x1760x1552 --shape 768x3168x3304"
timeout 60 $S/gm --out $OUT/r2-widths-listed.md $SH --command "$C" > $T/r2-widths-listed.log 2>&1; echo "widths listed rc=$? $(el)"
L=""; for f in $S/lib/lib*.so; do n=$(basename $f .so); L="$L --lib ${n#lib}=$f"; done
timeout 330 python3 bench/fused_bench.py $L --only gemm_bias_act_gelu --only gemm_bias_act_gelu_fast --only add_gemm --only relu_gemm \
  --sweep 30 --sweep-acts gelu,gelu_fast --out $OUT/r2-fused-sweep.md --command "$C" > $T/r2-fused-sweep.log 2>&1
echo "fused sweep rc=$? $(el)"; grep -E "^- " $OUT/r2-fused-sweep.md | grep -v "tuned"
left=$(( 560 - ($(date +%s) - start) ))
timeout $left python3 bench/fused_bench.py $L --only dual_gemm --only gemm_reduce_registers --only gemm_reduce_shared --only gemm_residual \
  --out $OUT/r2-fused-listed.md --command "$C" > $T/r2-fused-listed.log 2>&1
echo "fused listed rc=$? $(el)"; grep -E "^- " $OUT/r2-fused-listed.md
tar czf $OUT/r2-logs.tgz -C $T .
echo "done $(el)"
