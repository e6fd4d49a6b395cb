#!/usr/bin/env bash
# Session 29, device call 4 (prepare4.sh's binaries): the stream-K hand-over change.
#   1. timelines (trace256 / trace128, stream-K and whole tiles) on the three shapes of r2;
#   2. gemm_e2e on examples/gemm + the stream-K candidates (mappings 15, 16): every shape, every mapping by
#      index; memcheck / racecheck / synccheck on 15 and 16 at 1000^3, 129x257x65 and 3520x1760x1552 (every
#      tile shared); gba_e2e (GELU + stream-K candidates 13, 14): every mapping, the three sanitizers by index;
#   3. gm_sk: the sweep (seed 20261125) and the mid shapes, every mapping beside cuBLAS.
set -u
S=build-gpu/s29n
H=bench/results/2026-12-02-h200-streamk
C="bash $H/r4.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
mkdir -p $T/trace
for v in 256 128; do
  for shape in 3520x1760x1552 4096x4096x4096 2232x3288x3296; do
    a=$(echo $shape | tr x ' ')
    timeout 60 build-gpu/s29t2/trace$v $a > $T/trace/sk$v-$shape.csv 2>&1; echo "trace$v $shape sk rc=$? $(tail -1 $T/trace/sk$v-$shape.csv)"
    LOOM_SK_DP=1 timeout 60 build-gpu/s29t2/trace$v $a > $T/trace/dp$v-$shape.csv 2>&1; echo "trace$v $shape dp rc=$? $(tail -1 $T/trace/dp$v-$shape.csv)"
  done
done
( timeout 150 $S/gemm_e2e
  for tool in memcheck racecheck synccheck; do
    for m in 15 16; do
      for shape in 1000x1000x1000 129x257x65 3520x1760x1552; do
        echo "== compute-sanitizer --tool $tool, $shape on mapping $m"
        timeout 100 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gemm_e2e --only $shape --mapping $m --runs 1 || echo "FAIL $tool $m $shape"
      done
    done
  done ) > $T/r4-gemm-e2e.log 2>&1
echo "gemm e2e: $(grep -c FAIL $T/r4-gemm-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r4-gemm-e2e.log | sort | uniq -c | tr '\n' ' ')"
( timeout 120 $S/gba_e2e
  for tool in memcheck racecheck synccheck; do
    echo "== compute-sanitizer --tool $tool, every mapping by index, 129x257x65"
    timeout 150 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gba_e2e --by-index 129x257x65 || echo "FAIL $tool"
  done ) > $T/r4-gba-e2e.log 2>&1
echo "gba e2e: $(grep -c FAIL $T/r4-gba-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASS' $T/r4-gba-e2e.log | sort | uniq -c | tr '\n' ' ')"
X="--shape 3520x1760x1552 --shape 2232x3288x3296 --shape 1880x5120x3840 --shape 2832x3960x4848 --shape 2960x1464x3064 --shape 4096x4096x4096 --shape 8192x8192x8192"
timeout 200 $S/gm_sk --out $T/r4-gemm-sweep.md --sweep 40 --sweep-seed 20261125 $X --command "$C" > $T/r4-gemm.log 2>&1
echo "gemm sweep rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r4-gemm-sweep.md | tr '\n' ' ')"
tar czf $OUT/r4-trace.tgz -C $T trace
cp $T/r4-gemm-e2e.log $T/r4-gba-e2e.log $T/r4-gemm-sweep.md $T/r4-gemm.log $OUT/
