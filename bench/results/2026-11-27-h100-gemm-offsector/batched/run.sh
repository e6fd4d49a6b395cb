#!/usr/bin/env bash
set -u
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Ibuild-gpu/bmc/batched_gemm -DLOOM_HAVE_BATCHED_GEMM -DLOOM_MAPPINGS=13 bench/gemm_mappings.cu -lcuda -lcublas -o /tmp/bmc || exit 1
S=""
for s in 8x1864x2104x3592 4x3000x4040x2600 16x1032x1544x1032 2x5000x5000x4008 32x520x776x1032 2x5264x7640x7224 4x2232x3288x3296; do S="$S --shape $s"; done
timeout 200 /tmp/bmc --out $OUT/bmc-misaligned.md $S > /dev/null 2>&1; echo "misaligned rc=$?"
timeout 200 /tmp/bmc --out $OUT/bmc-sweep-20261125.md --sweep 40 --sweep-seed 20261125 > /dev/null 2>&1; echo "sweep rc=$?"
grep -E "^- (pick|best)" $OUT/bmc-*.md
