#!/usr/bin/env bash
set -u
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Ibuild-gpu/ord/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=6 bench/gemm_mappings.cu -lcuda -lcublas -o /tmp/ord || exit 1
S=""
for s in 5264x7640x7224 7328x5488x7248 5728x4184x6520 6192x5624x4888 2232x3288x3296 6408x696x7384 408x6896x6408; do S="$S --shape $s"; done
for al in 16; do
HX_LD_ALIGN=$al timeout 200 /tmp/ord --out $OUT/align$al.md $S > $OUT/align${al}_stdout.txt 2>&1; echo "align $al rc=$?"
grep "^| [0-9]" $OUT/align$al.md | awk -F'|' '{printf "%s cuBLAS %s | m0 %s | m1 %s | m2 %s\n", $2, $3, $4, $5, $6}'
done
