#!/usr/bin/env bash
# Session 19 round 1b: examples/gemm + two alternate(2) candidates (mappings 13, 14): check, sanitize, time.
set -u
cd "$(dirname "$0")/../.."
t0=$(date +%s)
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Ibuild-gpu/s19/gen/gemm_alt -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=15 bench/gemm_mappings.cu -lcuda -lcublas -o /tmp/gm || exit 1
echo "nvcc $(( $(date +%s) - t0 )) s"
timeout 60 /tmp/gm --out /tmp/chk.md --check-only --shape 300x520x200 --shape 129x257x65 --shape 1000x1000x1000 --shape 600x1248x4736 > $OUT/check.log 2>&1; echo "check rc=$? $(( $(date +%s) - t0 )) s"
grep -E "rel. error" $OUT/check.log
SAN=/usr/local/cuda/bin/compute-sanitizer
for tool in racecheck synccheck memcheck; do
  ( timeout 200 $SAN --tool $tool --error-exitcode 99 --print-limit 10 /tmp/gm --out /tmp/san-$tool.md --check-only --shape 300x520x200 --shape 129x257x65 > $OUT/san-$tool.log 2>&1; echo "$tool rc=$? $(grep -E 'SUMMARY' $OUT/san-$tool.log | tail -1)" > $OUT/san-$tool.rc ) &
done
wait
cat $OUT/san-*.rc
echo "san done $(( $(date +%s) - t0 )) s"
S=""
for s in 5264x7640x7224 5728x4184x6520 6192x5624x4888 5368x3960x7152 2232x3288x3296 408x6896x6408 6408x696x7384 5312x2584x7744 7168x7760x328 2256x7968x552 1704x5336x928 5096x6688x2936 8192x8192x1024 4096x4096x1024 6144x6144x512; do S="$S --shape $s"; done
timeout 180 /tmp/gm --out $OUT/r1-shapes.md $S > /dev/null 2>&1; echo "shapes rc=$? $(( $(date +%s) - t0 )) s"
timeout 120 /tmp/gm --out $OUT/r1-table.md > /dev/null 2>&1; echo "table rc=$? $(( $(date +%s) - t0 )) s"
grep -E "^- " $OUT/r1-*.md | head -20
