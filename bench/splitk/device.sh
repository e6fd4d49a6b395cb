#!/usr/bin/env bash
# bench/splitk/device.sh (run on the GPU in the directory bench/splitk/prepare.sh made): correctness of
# the examples' kernels and a forced split mapping, sanitizers on split shapes, then gemm_bench sweeps
# (seed 1125) for before / after / each forced split mapping and the fixed table before / after,
# cuBLAS timed in the same process. Results and logs in $OUT.
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
for d in gen gen-s4_64; do build $d corr_$d tests/gpu/gemm_correctness.cu "" & done
for d in gen gen-before gen-s2_128 gen-s4_128 gen-s4_64; do build $d bench_$d bench/gemm_bench.cu -lcublas & done
wait
fail=0
for d in gen gen-s4_64; do
  timeout 100 bin/corr_$d --runs 1 --seed 123 > logs/corr_$d.log 2>&1; rc=$?
  echo "corr $d rc=$rc ok=$(grep -cE '\| ok ' logs/corr_$d.log) fail=$(grep -cE '\| FAIL' logs/corr_$d.log)"; [ $rc -ne 0 ] && fail=1
done
for t in racecheck memcheck synccheck; do
  for spec in "corr_gen-s4_64 200x100x100" "corr_gen 272x96x2804"; do
    set -- $spec
    timeout 100 $SAN --tool $t --error-exitcode 99 --print-limit 5 bin/$1 --only $2 --runs 1 > logs/san_${t}_$1_$2.log 2>&1; rc=$?
    echo "$t $1 $2 rc=$rc $(grep -E 'SUMMARY' logs/san_${t}_$1_$2.log)"; [ $rc -ne 0 ] && fail=1
  done
done
CMD="cd build-gpu/splitk && bash bench3.sh (bench/splitk/device.sh)"
for w in gen gen-before gen-s2_128 gen-s4_128 gen-s4_64; do
  timeout 200 bin/bench_$w --out "$OUT/sweep-$w.md" --sweep 40 --sweep-seed 1125 --command "$CMD" > logs/sweep_$w.log 2>&1; echo "sweep $w rc=$?"
  grep -E "geomean|minimum" "$OUT/sweep-$w.md"
done
for w in gen gen-before; do
  timeout 150 bin/bench_$w --out "$OUT/table-$w.md" --command "$CMD" > logs/table_$w.log 2>&1; echo "table $w rc=$?"
  grep -E "geomean|minimum" "$OUT/table-$w.md"
done
for f in logs/*.log; do echo "#### $f"; head -c 20000 $f; done > "$OUT"/logs.txt
exit $fail
