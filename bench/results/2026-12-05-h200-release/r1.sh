#!/usr/bin/env bash
# Session 40, device call 1 (prepare.sh's binaries in build-gpu/s40; examples/gemm's 23 mappings + the six
# multicast(S, T) candidates 23-28; multicast mappings: 10-12 multicast(2), 23-28 two-dimensional):
#   1. gm_o, gm_a, gm_b, gm_o again: every mapping beside cuBLAS on the 16 shapes below, each binary its own process;
#   2. e2e_a (this session's form): the multicast mappings by index on four shapes; memcheck on 10-12 and
#      23-28 at 129x257x65 and on 23-28 at 505x2856x1048 (ghost tiles along both cluster dimensions);
#      racecheck / synccheck on 10, 23, 24 at 129x257x65;
#   3. e2e_b (one arrival per warpgroup): the multicast mappings by index on three shapes; memcheck and racecheck on
#      10 and 24 at 129x257x65;
set -u -o pipefail
S=build-gpu/s40
H=bench/results/2026-12-05-h200-release
C="bash $H/r1.sh"
T=$(mktemp -d)
[ -x $S/gm_o ] || (time bash $H/build.sh) 2>&1 | tail -12
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $T/r1-smi.txt 2>&1
SH=""
for s in 487x1688x7536 977x104x6336 274x176x6136 232x3684x6928 505x2856x1048 88x1168x2808 4959x800x776 600x1248x4736 \
         2232x3288x3296 2832x3960x4848 1880x5120x3840 2960x1464x3064 5264x7640x7224 6192x5624x4888 4096x4096x4096 8192x8192x1024; do
  SH="$SH --shape $s"
done
for v in o a b o2; do
  b=${v%2}
  timeout 120 $S/gm_$b --out $T/r1-gm-$v.md $SH --command "$C" > $T/r1-gm-$v.log 2>&1
  echo "gm $v rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r1-gm-$v.md | tr '\n' ' ')"
done
( for m in 10 11 12 23 24 25 26 27 28; do
    for sh in 129x257x65 505x2856x1048 487x1688x7536 1000x1000x1000; do
      timeout 30 $S/e2e_a --only $sh --mapping $m --runs 1 | tail -2 || echo "FAIL e2e_a $m $sh"
    done
  done
  for m in 10 11 12 23 24 25 26 27 28; do
    echo "== compute-sanitizer --tool memcheck, 129x257x65 on mapping $m"
    timeout 60 $SAN --tool memcheck --error-exitcode 99 --print-limit 20 $S/e2e_a --only 129x257x65 --mapping $m --runs 1 || echo "FAIL memcheck $m"
  done
  for m in 23 24 25 26 27 28; do
    echo "== compute-sanitizer --tool memcheck, 505x2856x1048 on mapping $m"
    timeout 60 $SAN --tool memcheck --error-exitcode 99 --print-limit 20 $S/e2e_a --only 505x2856x1048 --mapping $m --runs 1 || echo "FAIL memcheck $m 505"
  done
  for tool in racecheck synccheck; do
    for m in 10 23 24; do
      echo "== compute-sanitizer --tool $tool, 129x257x65 on mapping $m"
      timeout 90 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/e2e_a --only 129x257x65 --mapping $m --runs 1 || echo "FAIL $tool $m"
    done
  done ) > $T/r1-e2e-a.log 2>&1
echo "e2e a: $(grep -c FAIL $T/r1-e2e-a.log) FAIL lines; $(grep -c PASS $T/r1-e2e-a.log) PASS; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r1-e2e-a.log | sort | uniq -c | tr '\n' ' ')"
grep -m5 FAIL $T/r1-e2e-a.log
( for m in 10 11 12 23 24 25 26 27 28; do
    for sh in 129x257x65 505x2856x1048 487x1688x7536; do
      timeout 30 $S/e2e_b --only $sh --mapping $m --runs 1 | tail -2 || echo "FAIL e2e_b $m $sh"
    done
  done
  for tool in memcheck racecheck; do
    for m in 10 24; do
      echo "== compute-sanitizer --tool $tool, 129x257x65 on mapping $m"
      timeout 90 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/e2e_b --only 129x257x65 --mapping $m --runs 1 || echo "FAIL $tool $m"
    done
  done ) > $T/r1-e2e-b.log 2>&1
echo "e2e b: $(grep -c FAIL $T/r1-e2e-b.log) FAIL lines; $(grep -c PASS $T/r1-e2e-b.log) PASS; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r1-e2e-b.log | sort | uniq -c | tr '\n' ' ')"
grep -m5 FAIL $T/r1-e2e-b.log
tar czf $OUT/r1.tgz -C $T .
