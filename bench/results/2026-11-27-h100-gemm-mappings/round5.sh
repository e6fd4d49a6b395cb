#!/usr/bin/env bash
# Session 16 round 5: examples/gemm plus a 192 x 192 candidate (3 compute warpgroups, 3 stages; less
# L2 traffic per FMA than 128 x 256): every mapping on its own on the slow large shapes and the two
# GEMM sweeps; per-mapping correctness by index (check-only) first.
set -u
cd "$(dirname "$0")/../.."
G=build-gpu/s16e; B=/tmp/s16e/bin; mkdir -p $B "$OUT"
NVCC=/usr/local/cuda/bin/nvcc
"$NVCC" -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I$G/gen/gemm \
  -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=10 bench/gemm_mappings.cu -lcuda -lcublas -o $B/map_gemm || exit 1
for sh in 129x257x65 300x200x1000 1000x1000x1000; do timeout 60 $B/map_gemm --out /tmp/s16e/x.md --check-only --shape $sh | grep "rel. error"; done
S="--shape 5264x7640x7224 --shape 7824x7424x6296 --shape 6192x5624x4888 --shape 8192x8192x8192 --shape 5312x2584x7744 --shape 3464x4040x1240 --shape 4096x4096x4096 --shape 6736x5016x5456"
timeout 150 $B/map_gemm --out "$OUT/oracle-large.md" $S --command "build-gpu/s16e/run.sh" > /tmp/s16e/o1.log 2>&1; echo "oracle large rc=$?"
grep "^| [0-9]" "$OUT/oracle-large.md" | awk -F'|' '{print $2, $3, $4, $12, $13, $14, $15, $16, $17}'
for seed in 20261127 20261125; do
  timeout 150 $B/map_gemm --out "$OUT/oracle-sweep-$seed.md" --sweep 40 --sweep-seed $seed --command "build-gpu/s16e/run.sh" > /tmp/s16e/o-$seed.log 2>&1; echo "sweep $seed rc=$?"
  grep -E "^- (pick|best)" "$OUT/oracle-sweep-$seed.md"
done
