#!/usr/bin/env bash
# Session 19 round 2: examples/gemm's default mapping + one alternate(2) candidate each (a: 64x256 tiles,
# one warpgroup a team; b: 128x128 tiles, two warpgroups a team): check, racecheck, time.
set -u
cd "$(dirname "$0")/../.."
t0=$(date +%s)
for x in a b; do
  /usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Ibuild-gpu/s19/gen/gemm_$x -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=2 bench/gemm_mappings.cu -lcuda -lcublas -o /tmp/gm_$x > $OUT/nvcc_$x.log 2>&1 &
done
wait
echo "nvcc $(( $(date +%s) - t0 )) s"
for x in a b; do
  timeout 25 /tmp/gm_$x --out /tmp/chk_$x.md --check-only --shape 300x520x200 --shape 129x257x65 --shape 1000x1000x1000 --shape 600x1248x4736 > $OUT/check_$x.log 2>&1; echo "check $x rc=$? $(( $(date +%s) - t0 )) s"
  grep -E "rel. error" $OUT/check_$x.log
done
SAN=/usr/local/cuda/bin/compute-sanitizer
for x in a b; do for tool in racecheck synccheck; do
  ( timeout 70 $SAN --tool $tool --error-exitcode 99 --print-limit 10 /tmp/gm_$x --out /tmp/san-$x-$tool.md --check-only --shape 300x520x200 --shape 129x257x65 > $OUT/san-$x-$tool.log 2>&1; echo "$x $tool rc=$? $(grep -E 'SUMMARY' $OUT/san-$x-$tool.log | tail -1)" > $OUT/san-$x-$tool.rc ) &
done; done
wait
cat $OUT/san-*.rc
echo "san done $(( $(date +%s) - t0 )) s"
S=""
for s in 8192x8192x1024 4096x4096x1024 6144x6144x512 2256x7968x552 7168x7760x328 4096x4096x4096 5264x7640x7224 5096x6688x2936; do S="$S --shape $s"; done
for x in a b; do
  timeout 90 /tmp/gm_$x --out $OUT/r2-$x.md $S > /dev/null 2>&1; echo "time $x rc=$? $(( $(date +%s) - t0 )) s"
done
grep -E "^\|" $OUT/r2-*.md | head -30
