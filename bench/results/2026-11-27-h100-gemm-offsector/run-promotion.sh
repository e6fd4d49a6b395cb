#!/usr/bin/env bash
set -u
S=""
for s in 5264x7640x7224 7328x5488x7248 5728x4184x6520 6192x5624x4888 2232x3288x3296 6408x696x7384 408x6896x6408 8192x8192x8192; do S="$S --shape $s"; done
for p in NONE L2_64B L2_128B; do
  /usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Ibuild-gpu/ord/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=6 -DLOOM_EXP_PROMO=CU_TENSOR_MAP_L2_PROMOTION_$p bench/gemm_mappings.cu -lcuda -lcublas -o /tmp/ord_$p &
done
wait
for p in NONE L2_64B L2_128B; do
timeout 150 /tmp/ord_$p --out $OUT/promo_$p.md $S > /dev/null 2>&1; echo "promotion $p rc=$?"
grep "^| [0-9]" $OUT/promo_$p.md | awk -F'|' '{printf "%s cuBLAS %s | m0 %s | m1 %s | m2 %s\n", $2, $3, $4, $5, $6}'
done
