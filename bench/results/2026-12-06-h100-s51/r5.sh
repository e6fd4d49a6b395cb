#!/usr/bin/env bash
# Session 51 (prepared for a later session; not run), one device call (carry build-gpu/s51e.tar.xz from prepare5.sh,
# about 2 minutes): where loom's transposed 224 x 128 tile on clusters of 2 (4 stages; gm29's mapping 28) waits,
# against cuBLAS's kernel with the same tile and cluster at 2232x3288x3296: ncu --set full with source-level sampling,
# one launch each, summarized by bench/ncu_stalls.py (this session's r1 did the same for mappings 0, 10, 12 and 21);
# then the 29 mappings and cuBLAS timed at that shape and two neighbours.
set -u
mkdir -p $OUT
R=$(mktemp -d)
tar xJf build-gpu/s51e.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
start=$(date +%s); el() { echo "$(( $(date +%s) - start )) s"; }
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
G=build-gpu/s51e/bin/gm29
for k in nvjet mapping2811gemm_kernel; do
  n=${k%%11gemm_kernel}
  timeout 120 $NCU --set full --import-source yes --kernel-name-base mangled -k regex:$k --launch-count 1 -o $R/$n \
    $G --check-only --shape 2232x3288x3296 --out /tmp/x.md > $R/$n-run.txt 2>&1
  echo "ncu $n rc=$? $(el)"
  $NCU -i $R/$n.ncu-rep --page source --csv --print-source sass > $R/$n-sass.csv 2>&1
  $NCU -i $R/$n.ncu-rep --page details --print-details all > $R/$n-details.txt 2>&1
  python3 bench/ncu_stalls.py $R/$n-sass.csv 40 > $OUT/$n-stalls.txt 2>&1
  head -2 $OUT/$n-stalls.txt
done
timeout 120 $G --out $OUT/gm29.md --shape 2232x3288x3296 --shape 2232x3400x3296 --shape 2000x3288x3296 \
  --command "bash bench/results/2026-12-06-h100-s51/r5.sh" > $R/gm29.log 2>&1; echo "gm29 rc=$? $(el)"
grep -E '^- (pick|best)' $OUT/gm29.md
rm -f $R/*.ncu-rep
tar cJf $OUT/r5-ncu.tar.xz -C $R .
echo "done $(el)"
