#!/usr/bin/env bash
# experiment: multicast(2) candidates beside gemm's mappings (correctness, sanitizers, timing)
set -u
GEN=build-gpu/mcx
NVCC=/usr/local/cuda/bin/nvcc
SAN=/usr/local/cuda/bin/compute-sanitizer
mkdir -p /tmp/map
nvidia-smi --query-gpu=name --format=csv,noheader
if [ -z "${SKIP_GC:-}" ]; then $NVCC -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I$GEN/gemm -DLOOM_HAVE_GEMM \
  tests/gpu/gemm_correctness.cu $GEN/gemm/gemm.cu -lcuda -o /tmp/gc > $OUT/gc_build.txt 2>&1 || { echo build failed; tail $OUT/gc_build.txt; }
timeout 120 /tmp/gc --skip-large > $OUT/corr.txt 2>&1; echo "correctness rc=$?"
grep -c FAIL $OUT/corr.txt; grep FAIL $OUT/corr.txt | head -20; fi
timeout 330 bash bench/gemm_mappings.sh $GEN /tmp/map --sweep 40 --sweep-seed 20261125 --table > /tmp/map/stdout.txt 2>&1; echo "mappings rc=$?"
tail -5 /tmp/map/stdout.txt
cp /tmp/map/*.md $OUT/ 2>/dev/null
[ -n "${SKIP_SAN:-}" ] && exit 0
for tool in memcheck racecheck synccheck; do
  timeout 60 $SAN --tool $tool --error-exitcode 99 --print-limit 10 /tmp/map/.bin/gemm --out /tmp/x.md --shape 300x200x1000 --check-only > $OUT/san_$tool.txt 2>&1
  echo "$tool rc=$?"; tail -3 $OUT/san_$tool.txt
done
