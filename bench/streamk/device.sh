#!/usr/bin/env bash
# bench/streamk/device.sh (on the GPU, in the directory bench/streamk/prepare.sh made): correctness of
# the dispatcher and of the forced stream-K kernels, compute-sanitizer on shared shapes, then
# gemm_bench sweeps (seeds 20261125 and 1125, 40 shapes each) and the fixed table for before / after
# and the forced mappings, cuBLAS timed in the same process. Results and logs in $OUT.
# SKIP_BENCH=1: correctness and sanitizers only; SKIP_CORR=1: the benchmarks only; SEEDS: the sweep seeds;
# VARIANTS: the kernel directories benchmarked.
set -u
cd "$(dirname "$0")"
NVCC=/usr/local/cuda/bin/nvcc
SAN=/usr/local/cuda/bin/compute-sanitizer
mkdir -p bin logs "$OUT"
F=(-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench)
build() {
  "$NVCC" "${F[@]}" -I$1/gemm -I$1/batched_gemm -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM $3 \
    $1/gemm/gemm.cu $1/batched_gemm/batched_gemm.cu -lcuda $4 -o bin/$2 >logs/build_$2.log 2>&1 || { echo "BUILD FAIL $2"; tail -20 logs/build_$2.log; }
}
VARIANTS=${VARIANTS:-gen gen-before gen-sk256 gen-sk128}
if [ -z "${SKIP_CORR:-}" ]; then for d in gen gen-sk256 gen-sk128; do build $d corr_$d tests/gpu/gemm_correctness.cu "" & done; fi
if [ -z "${SKIP_BENCH:-}" ]; then for d in $VARIANTS; do build $d bench_$d bench/gemm_bench.cu -lcublas & done; fi
wait
fail=0
[ -n "${SKIP_CORR:-}" ] || for d in gen gen-sk256 gen-sk128; do
  timeout 120 bin/corr_$d --runs 2 --seed $RANDOM > logs/corr_$d.log 2>&1; rc=$?
  echo "corr $d rc=$rc ok=$(grep -cE '\| ok ' logs/corr_$d.log) fail=$(grep -cE '\| FAIL' logs/corr_$d.log)"; [ $rc -ne 0 ] && fail=1
  grep -E "FAIL" logs/corr_$d.log | head -5
done
[ -n "${SKIP_CORR:-}" ] || for t in racecheck memcheck synccheck; do
  for spec in "corr_gen-sk128 300x200x1000" "corr_gen-sk256 600x1248x4736" "corr_gen-sk128 4x129x257x65"; do
    set -- $spec
    timeout 120 $SAN --tool $t --error-exitcode 99 --print-limit 5 bin/$1 --only $2 --runs 1 > logs/san_${t}_$1_$2.log 2>&1; rc=$?
    echo "$t $1 $2 rc=$rc $(grep -E 'SUMMARY' logs/san_${t}_$1_$2.log)"; [ $rc -ne 0 ] && fail=1
  done
done
if [ -z "${SKIP_BENCH:-}" ]; then
  CMD="cd build-gpu/streamk && bash device.sh (bench/streamk/device.sh)"
  for w in $VARIANTS; do
    for seed in ${SEEDS:-20261125 1125}; do
      timeout 200 bin/bench_$w --out "$OUT/sweep$seed-$w.md" --sweep 40 --sweep-seed $seed --command "$CMD" > logs/sweep${seed}_$w.log 2>&1; echo "sweep $seed $w rc=$?"
      grep -E "geomean|minimum" "$OUT/sweep$seed-$w.md"
    done
  done
  for w in gen gen-before; do
    timeout 150 bin/bench_$w --out "$OUT/table-$w.md" --command "$CMD" > logs/table_$w.log 2>&1; echo "table $w rc=$?"
    grep -E "geomean|minimum" "$OUT/table-$w.md"
  done
fi
for f in logs/*.log; do echo "#### $f"; head -c 20000 $f; done > "$OUT"/logs.txt
exit $fail
