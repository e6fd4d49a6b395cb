#!/usr/bin/env bash
# Session 36, device call 7: r3's two kernels (gemm m0, gemm_bias_act identity m0, 1704x5336x928) with
# ncu's per-instruction source page (SASS, warp-stall samples per instruction, -lineinfo), as CSV, for
# sass_regions.py to sum by region (main loop, epilogue).
set -u
S=build-gpu/s36
H=bench/results/2026-12-04-h200-bymap
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $S/lib
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
so() {  # so NAME GENDIR
  nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime -I$2 $2/*.cu -o $S/lib/lib$1.so \
    -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/$1.log 2>&1 \
    && echo "ok $1" || { echo "FAIL $1"; cat $S/lib/$1.log; }
}
so gemm $S/gen/gemm &
so identity $S/gen/gemm_bias_act_identity &
wait
for x in "gemm gemm" "identity gemm_bias_act"; do
  set -- $x
  timeout 240 ncu --launch-skip 2 --launch-count 1 -k regex:"^gemm(_bias_act)?_kernel" --section SourceCounters --section WarpStateStats \
    --page source --print-source sass --csv python3 $H/one.py $S/lib/lib$1.so $2 0 1704x5336x928 > $OUT/r4-src-$1.csv 2> $OUT/r4-src-$1.err
  echo "ncu $1 rc=$? $(wc -l < $OUT/r4-src-$1.csv) lines"
done
