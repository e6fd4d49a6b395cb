#!/usr/bin/env bash
# Session 29, device call 3 (prepare3.sh's kernels in build-gpu/s29p): ping-pong + multicast(2) candidates.
#   1. gemm_e2e: every shape, every mapping by index (15, 16 the new ones); memcheck / racecheck / synccheck on
#      15 and 16 at 1000^3 and 129x257x65; gba_e2e (GELU): every mapping, memcheck / racecheck by index;
#   2. gm_pp: every mapping of examples/gemm + the candidates beside cuBLAS, sweep seed 20261125 + mid shapes,
#      and the fixed table;
#   3. gemm_bias_act (GELU) + candidates vs cuBLASLt's epilogue, listed + 30-shape sweep, every mapping.
set -u
S=build-gpu/s29p
H=bench/results/2026-12-02-h200-streamk
C="bash $H/r3.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
( timeout 150 $S/gemm_e2e
  for tool in memcheck racecheck synccheck; do
    for m in 15 16; do
      for shape in 1000x1000x1000 129x257x65; do
        echo "== compute-sanitizer --tool $tool, $shape on mapping $m"
        timeout 100 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gemm_e2e --only $shape --mapping $m --runs 1 || echo "FAIL $tool $m $shape"
      done
    done
  done ) > $T/r3-gemm-e2e.log 2>&1
echo "gemm e2e: $(grep -c FAIL $T/r3-gemm-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r3-gemm-e2e.log | sort | uniq -c | tr '\n' ' ')"
( timeout 120 $S/gba_e2e
  for tool in memcheck racecheck synccheck; do
    echo "== compute-sanitizer --tool $tool, every mapping by index, 129x257x65"
    timeout 150 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gba_e2e --by-index 129x257x65 || echo "FAIL $tool"
  done ) > $T/r3-gba-e2e.log 2>&1
echo "gba e2e: $(grep -c FAIL $T/r3-gba-e2e.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASS' $T/r3-gba-e2e.log | sort | uniq -c | tr '\n' ' ')"
X="--shape 3520x1760x1552 --shape 2232x3288x3296 --shape 1880x5120x3840 --shape 2832x3960x4848 --shape 2960x1464x3064"
timeout 200 $S/gm_pp --out $T/r3-gemm-sweep.md --sweep 40 --sweep-seed 20261125 $X --command "$C" > $T/r3-gemm.log 2>&1
echo "gemm sweep rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r3-gemm-sweep.md | tr '\n' ' ')"
timeout 120 $S/gm_pp --out $T/r3-gemm-table.md --command "$C" >> $T/r3-gemm.log 2>&1
echo "gemm table rc=$? $(grep -E '^- (pick|best) / cuBLAS' $T/r3-gemm-table.md | tr '\n' ' ')"
timeout 240 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$S/lib/libgba.so --only gemm_bias_act_gelu --sweep 30 \
  --by-mapping --out $T/r3-gba.md --command "$C" > $T/r3-gba.log 2>&1
echo "gba rc=$? $(grep 'vs cuBLASLt' $T/r3-gba.md | tr '\n' ' ')"
cp $T/r3-gemm-e2e.log $T/r3-gba-e2e.log $T/r3-gemm-sweep.md $T/r3-gemm-table.md $T/r3-gba.md $T/r3-gba.log $T/r3-gemm.log $OUT/
