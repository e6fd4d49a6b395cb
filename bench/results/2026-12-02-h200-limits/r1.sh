#!/usr/bin/env bash
# Session 32, device call 1 (prepare1.sh's binaries in build-gpu/s32: examples/gemm's 23 mappings + candidates 23-25):
#   1. gemm_e2e: every shape through the pick and by index; memcheck on candidates 23-25 at 129x257x65 and 1000^3;
#   2. ncu (SpeedOfLight, MemoryWorkloadAnalysis, WarpStateStats) on the fastest loom mappings and cuBLAS's kernel at
#      four shapes still below 0.90x cuBLAS (gm --check-only --shape: one launch of each mapping and of cuBLAS);
#   3. gm: every mapping beside cuBLAS on sweep seed 20261125 (as round 2 of 2026-12-02-h200-transposed).
set -u
S=build-gpu/s32
H=bench/results/2026-12-02-h200-limits
C="bash $H/r1.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $T/r1-smi.txt 2>&1
( timeout 150 $S/gemm_e2e
  for m in 23 24 25; do
    for sh in 129x257x65 1000x1000x1000; do
      echo "== compute-sanitizer --tool memcheck, $sh on mapping $m"
      timeout 60 $SAN --tool memcheck --error-exitcode 99 --print-limit 20 $S/gemm_e2e --only $sh --mapping $m --runs 1 || echo "FAIL memcheck $m $sh"
    done
  done ) > $T/r1-gemm-e2e.log 2>&1
echo "gemm e2e: $(grep -c FAIL $T/r1-gemm-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY' $T/r1-gemm-e2e.log | sort | uniq -c | tr '\n' ' ')"
grep -m5 FAIL $T/r1-gemm-e2e.log
prof() {  # SHAPE KERNEL-REGEX TAG
  echo "=== $1 $2" >> $T/r1-ncu.txt
  timeout 90 $NCU --kernel-name-base demangled -k "regex:$2" -c 2 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section LaunchStats $S/gm --out $T/ncu-$3.md --check-only --shape $1 >> $T/r1-ncu.txt 2>&1 || echo "ncu rc=$? $1 $2"
}
prof 487x1688x7536 'mapping2::' a2
prof 487x1688x7536 'mapping3::' a3
prof 487x1688x7536 'mapping23::' a23
prof 487x1688x7536 'mapping24::' a24
prof 487x1688x7536 'nvjet|sm90_|cutlass|splitK' acub
prof 977x104x6336 'mapping5::' b5
prof 977x104x6336 'nvjet|sm90_|cutlass|splitK|reduce' bcub
prof 88x1168x2808 'mapping14::' c14
prof 88x1168x2808 'nvjet|sm90_|cutlass|splitK' ccub
prof 505x2856x1048 'mapping1::' d1
prof 505x2856x1048 'nvjet|sm90_|cutlass|splitK' dcub
echo "ncu: $(grep -c 'Duration' $T/r1-ncu.txt) kernels profiled"
timeout 240 $S/gm --out $T/r1-gemm-sweep-20261125.md --sweep 40 --sweep-seed 20261125 --command "$C" > $T/r1-gemm-20261125.log 2>&1
echo "sweep 20261125 rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r1-gemm-sweep-20261125.md | tr '\n' ' ')"
rm -f $T/ncu-*.md
tar czf $OUT/r1.tgz -C $T .
