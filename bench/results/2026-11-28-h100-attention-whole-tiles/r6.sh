#!/usr/bin/env bash
# Session 20, round 6: ncu source counters of the versioned FA2 (D = 64 and D = 128).
set -u
S=build-gpu/s20
O=${OUT:-/tmp/out}
for sh in 8x4096x4096x64 8x4096x4096x128; do
  timeout 120 ncu --section SourceCounters --section WarpStateStats --section SpeedOfLight --section ComputeWorkloadAnalysis -k regex:mha_kernel -c 1 \
    -o $O/ncu_$sh $S/bin/ac_fa2 --only $sh --seed 1 > $O/ncu_$sh.log 2>&1; tail -1 $O/ncu_$sh.log
  ncu -i $O/ncu_$sh.ncu-rep --page source --csv --print-source sass > $O/src_$sh.csv 2>/dev/null
  ncu -i $O/ncu_$sh.ncu-rep --page details > $O/details_$sh.txt 2>&1
  rm -f $O/ncu_$sh.ncu-rep
done
ls -la $O
