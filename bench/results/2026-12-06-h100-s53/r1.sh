#!/usr/bin/env bash
# Session 53, one device call (carry build-gpu/s53.tar.xz, build-gpu/s51e.tar.xz, build-gpu/s52b.tar.xz):
#  1. the transposed direct store through movmatrix (gm30, prepare1.sh): every mapping's output checked against cuBLAS
#     at edge shapes (N not a multiple of 8: the async-copy variants; the 224 x 128 multicast tile, mapping 28, always
#     stores directly; the 40 x 128 tile, mapping 29, has an odd last row group), then compute-sanitizer memcheck and
#     racecheck on mappings 28 and 29;
#  2. old (s51's gm29) against new (gm30) on mappings 10 (128 x 256 on clusters of 2) and 28, in both orders;
#  3. session 52's r5: the split-K candidates (sk34) on small long-K shapes.
set -u
mkdir -p $OUT
for t in s53 s51e s52b; do tar xJf build-gpu/$t.tar.xz; done
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s); el() { echo "$(( $(date +%s) - start )) s"; }
N=build-gpu/s53/bin/gm30; O=build-gpu/s51e/bin/gm29
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 150 $N --check-only --shape 129x257x65 --shape 1000x1000x1000 --shape 77x1003x300 --shape 2232x3288x3296 \
  --shape 505x2855x1048 --out $OUT/check.md > $OUT/check.log 2>&1; echo "check rc=$? $(el)"
awk -F'|' '/^\| [0-9]/{print $2, $(NF-1)}' $OUT/check.md
for tool in memcheck racecheck; do for s in 1000x1000x1000 129x250x65; do
  timeout 90 $SAN --tool $tool --error-exitcode 99 --print-limit 10 $N --check-only --maps 28,29 --shape $s --out /tmp/x.md \
    > $OUT/san-$tool-$s.log 2>&1; echo "$tool $s rc=$? $(el)"; tail -2 $OUT/san-$tool-$s.log
done; done
SH="--shape 2232x3288x3296 --shape 4096x4096x4096 --shape 1000x1000x1000"
for b in O N N O; do
  B=${!b}
  timeout 60 $B --maps 10,28 $SH --seed 5301 --out $OUT/t-$b.md > /dev/null 2>&1; echo "time $b rc=$? $(el)"
  grep -E '^\|' $OUT/t-$b.md | head -8
done
bash bench/results/2026-12-06-h100-s52/r5.sh
echo "done $(el)"
