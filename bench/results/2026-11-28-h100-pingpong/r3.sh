#!/usr/bin/env bash
# Session 21 round 3: correctness of the committed 128-row warpgroup tiles on paths round 2 did not
# cover: gemm_residual with C read from global memory per row block (res128.loom: one warpgroup a
# 128 x 64 tile), tests/gpu/e2e/gemm_alternate.sh on gemm_pingpong (tests/gpu/e2e/pingpong.sed:
# 128 x 128 a warpgroup, alternate(2), multicast(2); every shape + memcheck/racecheck/synccheck),
# and racecheck of gemm_bias_act's three mappings of round 2 by index.
set -u
cd "$(dirname "$0")/../../.."
B=build-gpu/s21; mkdir -p "$OUT"; t0=$(date +%s)
SAN=/usr/local/cuda/bin/compute-sanitizer
timeout 60 $B/res128_corr > $OUT/res128.log 2>&1; echo "residual 128-row rc=$? $(( $(date +%s) - t0 )) s"; tail -2 $OUT/res128.log
timeout 60 $SAN --tool memcheck --error-exitcode 99 $B/res128_corr --only 129x257x65 > $OUT/res128-memcheck.log 2>&1; echo "residual memcheck rc=$? $(grep SUMMARY $OUT/res128-memcheck.log | tail -1)"
( timeout 200 $SAN --tool racecheck --error-exitcode 99 --print-limit 10 $B/gba_corr > $OUT/gba-race.log 2>&1; echo "gba racecheck (every mapping) rc=$? $(grep SUMMARY $OUT/gba-race.log | tail -1)" > $OUT/gba-race.rc ) &
LOOM_GEN_DIR=$B/gen timeout 400 bash tests/gpu/e2e/gemm_alternate.sh /tmp gemm_pingpong > $OUT/pingpong-e2e.log 2>&1; echo "gemm_pingpong e2e rc=$? $(( $(date +%s) - t0 )) s"
grep -E "SUMMARY|PASS|FAIL|ok " $OUT/pingpong-e2e.log | head -30
wait; cat $OUT/gba-race.rc; echo "done $(( $(date +%s) - t0 )) s"
