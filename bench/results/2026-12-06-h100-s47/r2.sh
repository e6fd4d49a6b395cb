#!/usr/bin/env bash
# Session 47, device call 2 (carry build-gpu/s47b.tar.xz from prepare2-base.sh + prepare2.sh):
#  1. bench/fused_bench.py on the committed gemm_bias_act (gelu, gelu_fast) and add_gemm (HEAD's loom), then on the
#     same with cands.sh's three mappings appended and this tree's dispatcher (of equal estimates, the fewest bytes
#     loaded), each against its peers in the same process: 5 listed shapes + the 30-shape sweep (seed 20261125);
#  2. correctness of the extended kernels: gemm_bias_act (gelu_fast) and add_gemm, every shape through the pick and
#     every mapping by index; compute-sanitizer memcheck on every mapping by index at 129x257x65;
#  3. examples/gemm + the three (27 mappings; bench/gemm_mappings.cu, every mapping beside cuBLAS and its output
#     checked) on session 46's 14 listed shapes (the 40-shape sweep was cut to keep the call short: r1 timed the
#     same mappings on it, as candidates 26, 28 and 31).
set -u
mkdir -p $OUT
H=bench/results/2026-12-06-h100-s47
[ -d build-gpu/s47b/ext/bin ] || tar xJf build-gpu/s47b.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s)
el() { echo "$(( $(date +%s) - start )) s"; }
T=$(mktemp -d)
C="bash $H/r2.sh"
for v in base ext; do
  L=build-gpu/s47b/$v/lib
  timeout 150 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$L/libgemm_bias_act_gelu.so \
    --lib gemm_bias_act_gelu_fast=$L/libgemm_bias_act_gelu_fast.so --lib add_gemm=$L/libadd_gemm.so --sweep 30 \
    --out $OUT/fused-$v.md --command "$C" > $T/fused-$v.log 2>&1
  echo "fused $v rc=$? $(el)"; grep -iE "geomean" $OUT/fused-$v.md | head -20
done
X=build-gpu/s47b/ext/bin
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 60 $X/gba_ext > $T/gba-ext.txt 2>&1; echo "gba_ext rc=$? $(el)"; tail -1 $T/gba-ext.txt
timeout 60 $SAN --tool memcheck --error-exitcode 99 --print-limit 10 $X/gba_ext --by-index 129x257x65 > $T/gba-ext-memcheck.txt 2>&1
echo "gba_ext memcheck rc=$? $(grep -E 'ERROR SUMMARY' $T/gba-ext-memcheck.txt | sort | uniq -c | tr '\n' ' ') $(el)"
timeout 60 $X/add_gemm_ext > $T/add-gemm-ext.txt 2>&1; echo "add_gemm_ext rc=$? $(el)"; tail -1 $T/add-gemm-ext.txt
timeout 60 $SAN --tool memcheck --error-exitcode 99 --print-limit 10 $X/add_gemm_ext --by-index 129x257x65 > $T/add-gemm-ext-memcheck.txt 2>&1
echo "add_gemm_ext memcheck rc=$? $(grep -E 'ERROR SUMMARY' $T/add-gemm-ext-memcheck.txt | sort | uniq -c | tr '\n' ' ') $(el)"
if [ -z "${SKIP_GEMM:-}" ]; then  # (session 48's r1.sh runs this script with SKIP_GEMM=1, then its own GEMM tables)
SH=""; for s in 6408x696x7384 408x6896x6408 1880x5120x3840 5968x2448x6416 2232x3288x3296 3464x4040x1240 656x5248x7728 \
  1264x2688x7968 600x1248x4736 505x2856x1048 4959x800x776 977x104x6336 4096x4096x4096 6736x5016x5456; do SH="$SH --shape $s"; done
timeout 100 $X/gm --out $OUT/gemm-listed.md $SH --command "$C" > $T/gemm-listed.log 2>&1; echo "gemm listed rc=$? $(el)"
grep -E '^- (pick|tuned|best)' $OUT/gemm-listed.md
fi
tar czf $OUT/r2-logs.tgz -C $T .
echo "done $(el)"
