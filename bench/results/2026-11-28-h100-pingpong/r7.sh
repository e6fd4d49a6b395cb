#!/usr/bin/env bash
# Session 21 round 7: the clocks examples/gemm's m0 (128 x 256) and m6 (128 x 192) run at, at 8192^3, with
# the GPU's clocks free (ncu --clock-control none, the 21st launch of each, after the harness's warm-up).
set -u
cd "$(dirname "$0")/../../.."
B=build-gpu/s21; mkdir -p "$OUT"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for m in 0 6; do
  timeout 200 $NCU --clock-control none --kernel-name-base mangled --kernel-name "regex:8mapping${m}11gemm_kernel" --launch-skip 20 --launch-count 1 \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max \
    $B/gm_all --out /tmp/x$m.md --shape 8192x8192x8192 > $OUT/ncu-free-m$m.txt 2>&1; echo "m$m rc=$?"
  grep -E "gpu__time_duration|per_second|cycles_elapsed.max" $OUT/ncu-free-m$m.txt
done
