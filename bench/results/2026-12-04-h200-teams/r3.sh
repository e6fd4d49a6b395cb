#!/usr/bin/env bash
# Device call 3 (session 37): every mapping of gemm, batched_gemm, gemm_bias_act (GELU), relu_gemm and
# gemm_reduce under schedule(optimal) (prepare3.sh; the mappings whose tile loop's schedule takes two
# teams lowered with alternate(2)): the correctness tests on every shape through the launcher and every
# mapping by index, then compute-sanitizer memcheck and racecheck on every mapping by index at 129x257x65.
set -u
cd "$(dirname "$0")/../../.."
G=build-gpu/s37/gen3; B=build-gpu/s37/bin3; mkdir -p $B "$OUT"
NVCC=/usr/local/cuda/bin/nvcc
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
F="-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -Ibench"
$NVCC $F -I$G/gemm -I$G/batched_gemm -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM tests/gpu/gemm_correctness.cu $G/gemm/gemm.cu $G/batched_gemm/batched_gemm.cu -lcuda -o $B/gemm &
$NVCC $F -I$G/gemm_bias_act -DLOOM_ACT=2 tests/gpu/gemm_bias_act_correctness.cu $G/gemm_bias_act/gemm_bias_act.cu -lcuda -o $B/gemm_bias_act &
$NVCC $F -I$G/relu_gemm tests/gpu/relu_gemm_correctness.cu $G/relu_gemm/relu_gemm.cu -lcuda -lcublas -o $B/relu_gemm &
$NVCC $F -I$G/gemm_reduce tests/gpu/gemm_reduce_correctness.cu $G/gemm_reduce/gemm_reduce.cu -lcuda -o $B/gemm_reduce &
wait
ls $B
for e in gemm gemm_bias_act relu_gemm gemm_reduce; do
  timeout 300 $B/$e > $OUT/r3-$e.log 2>&1; echo "$e correctness rc=$?"; tail -1 $OUT/r3-$e.log
done
for m in 2; do  # examples/gemm's mappings that took two teams (gen3/gemm.schedule.txt)
  for tool in memcheck racecheck; do
    timeout 120 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $B/gemm --only 129x257x65 --mapping $m > $OUT/r3-gemm-m$m-$tool.log 2>&1
    echo "gemm mapping $m $tool 129x257x65 rc=$?"; tail -1 $OUT/r3-gemm-m$m-$tool.log
  done
done
for e in gemm_bias_act relu_gemm gemm_reduce; do
  for tool in memcheck racecheck; do
    timeout 300 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $B/$e --by-index 129x257x65 > $OUT/r3-$e-$tool.log 2>&1
    echo "$e $tool by-index 129x257x65 rc=$?"; tail -1 $OUT/r3-$e-$tool.log
  done
done
tar -C $OUT -czf $OUT/r3-logs.tar.gz $(cd $OUT && ls r3-*.log) && rm -f $OUT/r3-*.log
