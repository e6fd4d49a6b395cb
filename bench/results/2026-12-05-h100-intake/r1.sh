#!/usr/bin/env bash
# Session 44, device call 1 (carry build-gpu/s43 and build-gpu/s44; both built on the development machine):
#   build-gpu/s43/gm:    bench/gemm_mappings.cu over examples/gemm's 23 mappings (gemm.cu of this HEAD, byte-identical)
#   build-gpu/s44/gm_l2: the same, runtime/loom/host.h's tensor maps with CU_TENSOR_MAP_L2_PROMOTION_L2_256B (128B committed)
#     nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -I<runtime> -Ibench -Ibuild-gpu/s43/gemm \
#       -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=23 bench/gemm_mappings.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas -o ...
# 1. ncu as the sweep runs (--clock-control none --cache-control none), full set + SASS source counters, on the two
#    worst single-wave long-K shapes: loom's m3 (128x128 splitk(2)), m8 (64x128, 8 stages), m2 (128x64) and cuBLAS.
# 2. gm vs gm_l2 (L2 promotion 128B vs 256B) on the 7 shapes below 0.90 and 5 others, twice each, alternating.
set -u
mkdir -p $OUT
T=$(mktemp -d)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $OUT/smi.txt 2>&1
start=$(date +%s)
prof() {  # SHAPE KERNEL-REGEX TAG
  timeout 100 $NCU --clock-control none --cache-control none --kernel-name-base demangled -k "regex:$2" -c 1 --set full \
    --import-source yes -f -o $T/$3 build-gpu/s43/gm --out $T/x.md --check-only --shape $1 > $T/$3.log 2>&1 || echo "ncu rc=$? $1 $2"
  $NCU -i $T/$3.ncu-rep --page details > $T/$3-details.txt 2>&1
  $NCU -i $T/$3.ncu-rep --page source --csv --print-source sass > $T/$3-sass.csv 2>&1
  $NCU -i $T/$3.ncu-rep --page raw --csv > $T/$3-raw.csv 2>&1
  rm -f $T/$3.ncu-rep
  tar czf $OUT/ncu.tgz -C $T .
  echo "$3 done after $(( $(date +%s) - start )) s"
}
prof 487x1688x7536 'mapping3::' s487_m3
prof 487x1688x7536 'mapping8::' s487_m8
prof 487x1688x7536 'nvjet|sm90_|cutlass' s487_cub
prof 600x1248x4736 'mapping2::' s600_m2
prof 600x1248x4736 'mapping3::' s600_m3
prof 600x1248x4736 'nvjet|sm90_|cutlass' s600_cub
SH="--shape 600x1248x4736 --shape 487x1688x7536 --shape 505x2856x1048 --shape 977x104x6336 --shape 77x1696x1128 --shape 4959x800x776 --shape 4664x104x1320 --shape 4096x4096x4096 --shape 2232x3288x3296 --shape 6736x5016x5456 --shape 3520x1760x1552 --shape 768x3168x3304"
for r in 1 2; do
  timeout 100 build-gpu/s43/gm --out $OUT/t$r-128.md $SH > $T/t$r-128.log 2>&1; echo "gm 128B round $r rc=$?"
  timeout 100 build-gpu/s44/gm_l2 --out $OUT/t$r-256.md $SH > $T/t$r-256.log 2>&1; echo "gm 256B round $r rc=$?"
  echo "after $(( $(date +%s) - start )) s"
done
tar czf $OUT/ncu.tgz -C $T .
grep -h "Duration\|SM Frequency" $T/*-details.txt | head -40
