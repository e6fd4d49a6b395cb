#!/usr/bin/env bash
# Session 18 final round: GPU correctness + sanitizers of the epilogue load change (gemm_bias_act all
# activations, gemm_residual with C from global too, the tensor-expression kernels), run side by side
# (correctness only, no timing).
set -u
cd "$(dirname "$0")/../.."
G=build-gpu/s18/gen; W=/tmp/s18/w; L=/tmp/s18/logs; mkdir -p $W/a $W/b $W/c $L "$OUT"
t0=$(date +%s)
( LOOM_GEN_DIR=$G timeout 520 bash tests/gpu/e2e/gemm_bias_act.sh $W/a > $L/bias.log 2>&1; echo "gemm_bias_act rc=$? $(( $(date +%s) - t0 )) s" > $L/bias.rc ) &
( LOOM_GEN_DIR=$G timeout 520 bash tests/gpu/e2e/gemm_residual.sh $W/b > $L/res.log 2>&1; echo "gemm_residual rc=$? $(( $(date +%s) - t0 )) s" > $L/res.rc ) &
( LOOM_GEN_DIR=$G timeout 520 bash tests/gpu/e2e/tx.sh $W/c > $L/tx.log 2>&1; echo "tx rc=$? $(( $(date +%s) - t0 )) s" > $L/tx.rc ) &
wait
cat $L/*.rc
grep -E "ERROR SUMMARY" $L/bias.log $L/res.log $L/tx.log | sort | uniq -c
grep -ciE "\bFAIL" $L/bias.log $L/res.log $L/tx.log
tail -3 $L/tx.log
cp $L/*.log "$OUT"/
