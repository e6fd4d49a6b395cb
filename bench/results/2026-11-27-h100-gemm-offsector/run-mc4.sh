#!/usr/bin/env bash
set -u
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Ibuild-gpu/mc4/gemm -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=13 bench/gemm_mappings.cu -lcuda -lcublas -o /tmp/mc4 || exit 1
S=""
for s in 5264x7640x7224 5728x4184x6520 6192x5624x4888 5368x3960x7152 2232x3288x3296 408x6896x6408 6408x696x7384 5312x2584x7744 5720x2928x6640 4520x3504x1736 7168x7760x328 2256x7968x552 1704x5336x928 2232x2520x3816 5096x6688x2936; do S="$S --shape $s"; done
timeout 250 /tmp/mc4 --out $OUT/mc4-misaligned.md $S > /dev/null 2>&1; echo "misaligned rc=$?"
timeout 200 /tmp/mc4 --out $OUT/mc4-sweep-20261125.md --sweep 40 --sweep-seed 20261125 > /dev/null 2>&1; echo "sweep rc=$?"
timeout 200 /tmp/mc4 --out $OUT/mc4-sweep-20261127.md --sweep 40 --sweep-seed 20261127 > /dev/null 2>&1; echo "sweep2 rc=$?"
timeout 150 /tmp/mc4 --out $OUT/mc4-table.md > /dev/null 2>&1; echo "table rc=$?"
grep -E "^- (pick|best)" $OUT/mc4-*.md
