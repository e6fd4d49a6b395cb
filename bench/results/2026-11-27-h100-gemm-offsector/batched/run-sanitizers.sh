#!/usr/bin/env bash
set -u
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Ibuild-gpu/bfin/batched_gemm -DLOOM_HAVE_BATCHED_GEMM -DLOOM_MAPPINGS=13 bench/gemm_mappings.cu -lcuda -lcublas -o /tmp/bfin || exit 1
SAN=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck synccheck; do
  timeout 150 $SAN --tool $tool --error-exitcode 99 --print-limit 10 /tmp/bfin --out /tmp/x.md --shape 3x113x280x3400 --shape 2x300x200x1000 --check-only > $OUT/san_batched_$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "SUMMARY|rel. error" $OUT/san_batched_$tool.txt | head -4
done
