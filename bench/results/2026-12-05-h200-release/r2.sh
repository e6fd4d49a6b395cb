#!/usr/bin/env bash
# Session 40, device call 2 (prepare2.sh's sources in build-gpu/s40/gen and build-gpu/s40/n; this session's loom):
#   1. in parallel, each in its own scratch folder: tests/gpu/e2e/{gemm,gemm_multicast,add_gemm,relu_gemm,gemm_residual,
#      gemm_bias_act}.sh on the generated kernels (gemm_bias_act: GELU only, the other activations report "no ..."),
#      correctness on every shape and mapping plus their compute-sanitizer runs (memcheck, racecheck, synccheck);
#   2. gm_n (bench/gemm_mappings.cu on examples/gemm + candidates3.sh's mappings 23-28): r1's 16 shapes, then the
#      40-shape sweep of seed 20261125, each alone on the GPU.
set -u -o pipefail
S=build-gpu/s40
H=bench/results/2026-12-05-h200-release
C="bash $H/r2.sh"
T=$(mktemp -d)
W=$(mktemp -d)
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
export LOOM_GEN_DIR=$S/gen NVCC=$NV
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $T/r2-smi.txt 2>&1
$NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I$S/n -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=29 \
  bench/gemm_mappings.cu -lcuda -lcublas -o $S/gm_n > $T/r2-gm-n-build.log 2>&1 &
t0=$(date +%s)
for t in gemm gemm_multicast add_gemm relu_gemm gemm_residual gemm_bias_act; do
  mkdir -p $W/$t
  ( timeout 420 bash tests/gpu/e2e/$t.sh $W/$t > $T/r2-e2e-$t.log 2>&1; echo "e2e $t rc=$? ($(( $(date +%s) - t0 )) s)" ) &
done
wait
for t in gemm gemm_multicast add_gemm relu_gemm gemm_residual gemm_bias_act; do
  echo "  $t: $(grep -cE '\bFAIL\b' $T/r2-e2e-$t.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r2-e2e-$t.log | sed 's/ (.*//' | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
done
SH=""
for s in 487x1688x7536 977x104x6336 274x176x6136 232x3684x6928 505x2856x1048 88x1168x2808 4959x800x776 600x1248x4736 \
         2232x3288x3296 2832x3960x4848 1880x5120x3840 2960x1464x3064 5264x7640x7224 6192x5624x4888 4096x4096x4096 8192x8192x1024; do
  SH="$SH --shape $s"
done
timeout 120 $S/gm_n --out $T/r2-gm-n.md $SH --command "$C" > $T/r2-gm-n.log 2>&1
echo "gm n rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r2-gm-n.md | tr '\n' ' ')"
timeout 150 $S/gm_n --out $T/r2-gm-n-sweep-20261125.md --sweep 40 --sweep-seed 20261125 --command "$C" > $T/r2-gm-n-sweep.log 2>&1
echo "gm n sweep rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r2-gm-n-sweep-20261125.md | tr '\n' ' ')"
tar czf $OUT/r2.tgz -C $T .
