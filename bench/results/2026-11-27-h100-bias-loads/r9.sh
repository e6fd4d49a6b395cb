#!/usr/bin/env bash
# Session 18: gemm_bias_act_correctness with every mapping by index (4 activations, sanitizers), and the
# tx e2e whose gemm_bias_relu shim now maps the _mapping/_mappings/_pick entry points too.
set -u
cd "$(dirname "$0")/../.."
G=build-gpu/s18/gen; W=/tmp/s18/w9; L=/tmp/s18/logs9; mkdir -p $W/a $W/c $L "$OUT"
t0=$(date +%s)
( LOOM_GEN_DIR=$G timeout 400 bash tests/gpu/e2e/gemm_bias_act.sh $W/a > $L/bias.log 2>&1; echo "gemm_bias_act rc=$? $(( $(date +%s) - t0 )) s" > $L/bias.rc ) &
( LOOM_GEN_DIR=$G timeout 400 bash tests/gpu/e2e/tx.sh $W/c > $L/tx.log 2>&1; echo "tx rc=$? $(( $(date +%s) - t0 )) s" > $L/tx.rc ) &
wait
cat $L/*.rc
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $L/bias.log | sort | uniq -c
echo "bias rows ok: $(grep -c '| ok' $L/bias.log), FAIL: $(grep -c 'FAIL' $L/bias.log)"; grep -E "correctness \(" $L/bias.log | sort | uniq -c
grep -E "gemm_bias_relu|FAIL" $L/tx.log | head -5
cp $L/*.log "$OUT"/
