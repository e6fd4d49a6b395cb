#!/usr/bin/env bash
# Session 16 round 3a: examples/gemm and batched_gemm with three more candidates (gen-new) and
# HEAD's examples (gen-fix), both from this checkout's loom (cluster_slots in the estimate).
# Builds everything into /tmp/s16c/bin, checks correctness and sanitizers, runs the mapping oracle
# on a new seed (20261127).
set -u
cd "$(dirname "$0")/../.."
R=$(pwd); B=/tmp/s16c/bin; L=/tmp/s16c/logs; mkdir -p $B $L "$OUT"
NVCC=/usr/local/cuda/bin/nvcc; SAN=/usr/local/cuda/bin/compute-sanitizer
F=(-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -Itests/gpu)
G=build-gpu/s16c
bld() { "$NVCC" "${F[@]}" -I$G/$1/gemm -I$G/$1/batched_gemm -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM $3 \
    $G/$1/gemm/gemm.cu $G/$1/batched_gemm/batched_gemm.cu -lcuda $4 -o $B/$2 >$L/build_$2.log 2>&1 || { echo "BUILD FAIL $2"; tail -20 $L/build_$2.log; }; }
om() { "$NVCC" "${F[@]}" -I$G/gen-new/$1 -D$2 -DLOOM_MAPPINGS=9 bench/gemm_mappings.cu -lcuda -lcublas -o $B/map_$1 >$L/build_map_$1.log 2>&1 || { echo "BUILD FAIL map $1"; tail -20 $L/build_map_$1.log; }; }
t0=$(date +%s)
bld gen-new corr_new tests/gpu/gemm_correctness.cu "" &
bld gen-new bench_new bench/gemm_bench.cu -lcublas &
bld gen-fix bench_fix bench/gemm_bench.cu -lcublas &
om gemm LOOM_HAVE_GEMM &
om batched_gemm LOOM_HAVE_BATCHED_GEMM &
wait
echo "builds $(( $(date +%s) - t0 )) s"; ls $B
timeout 120 $B/corr_new --runs 1 --seed 20261127 > $L/corr.log 2>&1; rc=$?
echo "correctness rc=$rc ok=$(grep -cE '\| ok ' $L/corr.log) fail=$(grep -cE '\| FAIL' $L/corr.log)"; tail -3 $L/corr.log
for tool in memcheck racecheck synccheck; do
  for sh in 129x257x65 300x200x1000; do
    timeout 90 $SAN --tool $tool --error-exitcode 99 --print-limit 5 $B/map_gemm --out /tmp/s16c/x.md --check-only --shape $sh --only $sh > $L/san_${tool}_$sh.log 2>&1
    echo "$tool gemm $sh rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_${tool}_$sh.log)"
  done
  timeout 90 $SAN --tool $tool --error-exitcode 99 --print-limit 5 $B/map_batched_gemm --out /tmp/s16c/x.md --check-only --shape 3x129x257x65 --only 3x129x257x65 > $L/san_${tool}_b.log 2>&1
  echo "$tool batched 3x129x257x65 rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_${tool}_b.log)"
done
grep -h "rel. error" $L/san_memcheck_*.log | head -3
echo "elapsed $(( $(date +%s) - t0 )) s"
for k in gemm batched_gemm; do
  timeout 200 $B/map_$k --out "$OUT/mappings-$k-sweep-20261127.md" --sweep 40 --sweep-seed 20261127 --command "bash build-gpu/s16c/a.sh (gemm_mappings --sweep 40 --sweep-seed 20261127)" > $L/map_$k.log 2>&1; echo "oracle $k rc=$?"
  grep -E "^- (pick|best)" "$OUT/mappings-$k-sweep-20261127.md"
done
echo "elapsed $(( $(date +%s) - t0 )) s"
for f in $L/*.log; do echo "#### $f"; head -c 6000 $f; done > "$OUT"/logs-a.txt
