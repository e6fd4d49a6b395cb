#!/usr/bin/env bash
# Session 45, device call 5 (carry build-gpu/s45r5.tar.xz): 64 x 104 tiles (cuBLAS's at 600x1248x4736) on clusters,
# split-K and kteams(2), 64 x 184, 128 x 104 on 2 x 2: examples/gemm + `kteams.sh DIR r5` as mappings 24-31, built as
# in r2.sh (gm: bench/gemm_mappings.cu; gemm_e2e: tests/gpu/gemm_correctness.cu).
set -u
mkdir -p $OUT
tar xJf build-gpu/s45r5.tar.xz
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
start=$(date +%s)
timeout 100 build-gpu/s45r5/gemm_e2e > $OUT/e2e.txt 2>&1; echo "gemm_e2e rc=$? $(( $(date +%s) - start )) s"
grep -c "| ok" $OUT/e2e.txt; grep "^| " $OUT/e2e.txt | grep -v "| ok" | head -20; tail -2 $OUT/e2e.txt
run_san() {  # TOOL SHAPE MAPPING
  [ $(( $(date +%s) - start )) -gt 200 ] && { echo "out of time before $1 $2 m$3"; return; }
  echo "== $1 $2 mapping $3" >> $OUT/san.txt
  timeout 40 "$SAN" --tool $1 --error-exitcode 99 --print-limit 10 build-gpu/s45r5/gemm_e2e --only $2 --mapping $3 --runs 1 >> $OUT/san.txt 2>&1
  echo "$1 $2 m$3 rc=$?"
}
run_san memcheck 129x257x65 25; run_san racecheck 1000x1000x1000 28; run_san memcheck 1000x1000x1000 27
C="bash bench/results/2026-12-05-h100-s45/r5.sh"
SH="--shape 600x1248x4736 --shape 487x1688x7536 --shape 505x2856x1048 --shape 977x104x6336 --shape 77x1696x1128 --shape 4959x800x776 --shape 4664x104x1320 --shape 2232x3288x3296 --shape 6736x5016x5456 --shape 3520x1760x1552 --shape 768x3168x3304"
timeout 50 build-gpu/s45r5/gm --out $OUT/listed.md $SH --command "$C" > $OUT/listed.log 2>&1; echo "listed rc=$? $(( $(date +%s) - start )) s"
timeout 110 build-gpu/s45r5/gm --out $OUT/sweep.md --sweep 40 --sweep-seed 20261125 --command "$C" > $OUT/sweep.log 2>&1; echo "sweep rc=$? $(( $(date +%s) - start )) s"
grep -E '^- (pick|tuned|best)' $OUT/sweep.md
grep -c "ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards" $OUT/san.txt
echo "done $(( $(date +%s) - start )) s"
