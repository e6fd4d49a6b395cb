#!/usr/bin/env bash
# Session 45, device call 3 (carry build-gpu/s45k.tar.xz): r2 again after two fixes (r2 hung on kteams(4) with
# pipeline(4) - a team holds two slots, so the depth must be at least 2T - and racecheck reported the named-barrier
# hand-over of the partial sums; it is now an mbarrier pair). Mapping 29 is now transposed 80 x 128 on 2 teams of 2
# warpgroups (kteams.sh). Same builds and steps as r2.sh, sanitizers on fewer mappings.
set -u
mkdir -p $OUT
tar xJf build-gpu/s45k.tar.xz
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
start=$(date +%s)
timeout 150 build-gpu/s45k/gemm_e2e > $OUT/e2e.txt 2>&1; echo "gemm_e2e rc=$? $(( $(date +%s) - start )) s"
grep -c "| ok" $OUT/e2e.txt; grep "^| " $OUT/e2e.txt | grep -v "| ok" | head -20; tail -3 $OUT/e2e.txt
C="bash bench/results/2026-12-05-h100-s45/r3.sh"
SH="--shape 600x1248x4736 --shape 487x1688x7536 --shape 505x2856x1048 --shape 977x104x6336 --shape 77x1696x1128 --shape 4959x800x776 --shape 4664x104x1320 --shape 2232x3288x3296 --shape 6736x5016x5456 --shape 3520x1760x1552 --shape 768x3168x3304"
timeout 60 build-gpu/s45k/gm --out $OUT/listed.md $SH --command "$C" > $OUT/listed.log 2>&1; echo "listed rc=$? $(( $(date +%s) - start )) s"
timeout 110 build-gpu/s45k/gm --out $OUT/sweep.md --sweep 40 --sweep-seed 20261125 --command "$C" > $OUT/sweep.log 2>&1; echo "sweep rc=$? $(( $(date +%s) - start )) s"
grep -E '^- (pick|tuned|best)' $OUT/sweep.md
run_san() {  # TOOL SHAPE MAPPING
  [ $(( $(date +%s) - start )) -gt 440 ] && { echo "out of time before $1 $2 m$3"; return; }
  echo "== $1 $2 mapping $3" >> $OUT/san.txt
  timeout 40 "$SAN" --tool $1 --error-exitcode 99 --print-limit 10 build-gpu/s45k/gemm_e2e --only $2 --mapping $3 --runs 1 >> $OUT/san.txt 2>&1
  echo "$1 $2 m$3 rc=$?"
}
for m in 24 25 27 29; do run_san racecheck 1000x1000x1000 $m; done
run_san racecheck 129x257x65 24
for m in 29 31 26 28; do run_san memcheck 1000x1000x1000 $m; run_san synccheck 129x257x65 $m; done
grep -c "ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards" $OUT/san.txt
echo "done $(( $(date +%s) - start )) s"
