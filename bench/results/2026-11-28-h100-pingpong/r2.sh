#!/usr/bin/env bash
# Session 21 round 2: 128-row accumulators per warpgroup + alternate(2) (CUTLASS's ping-pong: one
# warpgroup a 128 x 128 tile, two teams) against the default 128 x 256 cooperative mapping; gemm and
# gemm_bias_act (GELU). Binaries prebuilt in build-gpu/s21 (nvcc 13, sm_90a) from gemm_pp.loom / gba_pp.loom.
set -u
cd "$(dirname "$0")/../../.."
B=build-gpu/s21; mkdir -p "$OUT"; t0=$(date +%s)
SAN=/usr/local/cuda/bin/compute-sanitizer
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 40 $B/gm_pp --out $OUT/check.md --check-only --shape 300x520x200 --shape 129x257x65 --shape 1000x1000x1000 --shape 600x1248x4736 --shape 4096x4096x4096 > $OUT/check.log 2>&1; echo "gemm check rc=$? $(( $(date +%s) - t0 )) s"
grep -E "rel|FAIL|mismatch" $OUT/check.log | head -12
timeout 40 $B/gba_corr > $OUT/gba_corr.log 2>&1; echo "gba corr rc=$? $(( $(date +%s) - t0 )) s"; tail -3 $OUT/gba_corr.log
for tool in racecheck synccheck; do
  ( timeout 80 $SAN --tool $tool --error-exitcode 99 --print-limit 10 $B/gm_pp --out /tmp/san-$tool.md --check-only --shape 300x520x200 --shape 129x257x65 > $OUT/san-gm-$tool.log 2>&1; echo "gemm $tool rc=$? $(grep SUMMARY $OUT/san-gm-$tool.log | tail -1)" > $OUT/san-gm-$tool.rc ) &
done
( timeout 150 $SAN --tool racecheck --error-exitcode 99 --print-limit 10 $B/gba_corr > $OUT/san-gba-race.log 2>&1; echo "gba racecheck rc=$? $(grep SUMMARY $OUT/san-gba-race.log | tail -1)" > $OUT/san-gba-race.rc ) &
wait; cat $OUT/*.rc; echo "sanitizers $(( $(date +%s) - t0 )) s"
S=""; for s in 8192x8192x8192 4096x4096x4096 8192x8192x1024 4096x14336x4096 5000x3000x2000 2256x7968x552 6144x6144x512 3464x4040x1240 1000x1000x1000; do S="$S --shape $s"; done
timeout 120 $B/gm_pp --out $OUT/gemm-time.md $S > $OUT/gemm-time.log 2>&1; echo "gemm time rc=$? $(( $(date +%s) - t0 )) s"
grep -E "^\|" $OUT/gemm-time.md | head -14
timeout 150 $B/gm_pp --out $OUT/gemm-sweep.md --sweep 40 --sweep-seed 20261125 > $OUT/gemm-sweep.log 2>&1; echo "gemm sweep rc=$? $(( $(date +%s) - t0 )) s"; grep -E "^- (pick|best)|geomean" $OUT/gemm-sweep.md | head
timeout 200 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$B/libgemm_bias_act_gelu.so --only gemm_bias_act_gelu --by-mapping --sweep 30 --out $OUT/gba.md > $OUT/gba.log 2>&1; echo "gba bench rc=$? $(( $(date +%s) - t0 )) s"
grep -E "^\||geomean|^- " $OUT/gba.md | head -60
