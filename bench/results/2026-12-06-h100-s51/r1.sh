#!/usr/bin/env bash
# Session 51, device call 1 (carry build-gpu/s51.tar.xz from prepare1.sh): ncu --set full with source-level
# (SASS) stall sampling at 2232x3288x3296 on cuBLAS's kernel and loom's 128 x 256 on clusters of 2 (mapping 10),
# 192 x 192 on clusters of 2 (12), 240 x 128 transposed (21) and 128 x 256 (0), one launch each (--check-only runs
# every method once).
set -u
mkdir -p $OUT
R=$(mktemp -d)  # everything lands here and returns as one archive (the device returns at most 8 files)
tar xJf build-gpu/s51.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s); el() { echo "$(( $(date +%s) - start )) s"; }
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
G=build-gpu/s51/bin/gm28
for k in nvjet mapping1011gemm_kernel mapping1211gemm_kernel mapping2111gemm_kernel 8mapping011gemm_kernel; do
  n=${k%%11gemm_kernel}; n=${n#8}
  timeout 120 $NCU --set full --import-source yes --kernel-name-base mangled -k regex:$k --launch-count 1 -o $R/$n \
    $G --check-only --shape 2232x3288x3296 --out /tmp/x.md > $R/$n-run.txt 2>&1
  echo "ncu $n rc=$? $(el)"
  $NCU -i $R/$n.ncu-rep --page details --print-details all > $R/$n-details.txt 2>&1
  $NCU -i $R/$n.ncu-rep --page source --csv --print-source sass > $R/$n-sass.csv 2>&1
done
grep -E "Duration|Elapsed Cycles|Compute \(SM\) Throughput|L2 Cache Throughput|Issued Warp Per Scheduler" $R/*-details.txt | head -40
tar cJf $OUT/r1-ncu.tar.xz -C $R .
ls -la $OUT
echo "done $(el)"
