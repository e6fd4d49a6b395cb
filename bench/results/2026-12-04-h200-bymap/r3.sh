#!/usr/bin/env bash
# Session 36, device call 5: where the bias epilogue's time goes at 1704x5336x928 (128 x 256 tiles,
# mapping 0 of both programs: gemm's plain epilogue 0.0319 ms, the identity epilogue 0.0374 in r1):
# ncu (SpeedOfLight, WarpStateStats, SchedulerStats, InstructionStats, SourceCounters with -lineinfo)
# on the third call of gemm m0 and gemm_bias_act (identity) m0 (one.py).
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
  timeout 240 ncu --launch-skip 2 --launch-count 1 -k regex:"^gemm(_bias_act)?_kernel" --section SpeedOfLight --section WarpStateStats \
    --section SchedulerStats --section InstructionStats --section SourceCounters --print-details all \
    python3 $H/one.py $S/lib/lib$1.so $2 0 1704x5336x928 > $OUT/r3-ncu-$1.txt 2>&1
  echo "ncu $1 rc=$?"
  grep -E "Duration|Executed Instructions |Issued Warp|No Eligible|Warp Cycles Per Issued|Stall" $OUT/r3-ncu-$1.txt | head -24
done
