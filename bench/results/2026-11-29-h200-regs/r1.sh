#!/usr/bin/env bash
# Session 27, device call 1 (kernels from prepare.sh in build-gpu/s27): the register split per role.
#   1. correctness: FlashAttention-2 and -3 with the DMA warpgroup at 24 registers (g24; the compute
#      warpgroups at 240) through tests/gpu/e2e/attention.sh (every shape, sanitizers), and
#      gemm_bias_act (GELU) with the 192 x 192 regs(24, 160) candidates (every mapping by index, sanitizers);
#   2. attention: fa2 / fa3 (the rule: 40 / 232) beside fa2_r24 / fa3_r24 (24 / 240), cuDNN, FA2, Triton;
#   3. examples/gemm, fixed table: gm40 and gm24 alternating, two rounds;
#   4. gemm_bias_act (GELU) vs cuBLASLt's epilogue, 30-shape sweep: gba40 (as committed), gba_c40
#      (+ the 192 x 192 candidates), gba24 (every mapping's DMA warpgroup at 24).
set -u
S=build-gpu/s27
R=bench/results/2026-11-29-h200-regs
C="bash $R/r1.sh"
T=$(mktemp -d)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $T/r1-smi.txt
for v in fa2 fa3; do
  ATTENTION_E2E_BIN=$S/att_${v}_24 timeout 300 bash tests/gpu/e2e/attention.sh $S/g24/$v $T --d "64 128" > $T/r1-e2e-$v.log 2>&1
  echo "e2e $v (24/240) rc=$? $(tail -1 $T/r1-e2e-$v.log)"
done
( timeout 120 $S/gba_c_e2e
  for tool in memcheck racecheck synccheck; do
    echo "== compute-sanitizer --tool $tool, 129x257x65"
    timeout 120 $SAN --tool $tool --error-exitcode 99 --print-limit 20 $S/gba_c_e2e --only 129x257x65 || echo "FAIL $tool"
  done
  echo "== compute-sanitizer --tool memcheck, 128x128x64"
  timeout 120 $SAN --tool memcheck --error-exitcode 99 --print-limit 20 $S/gba_c_e2e --only 128x128x64 || echo "FAIL memcheck 128"
) > $T/r1-e2e-gba_c.log 2>&1
echo "e2e gba_c: $(grep -c '^FAIL\|FAIL ' $T/r1-e2e-gba_c.log) FAIL lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $T/r1-e2e-gba_c.log | tr '\n' ' ')"
timeout 420 python3 bench/attention_bench.py --lib fa2=$S/lib/libfa2_40.so --lib fa2_r24=$S/lib/libfa2_24.so \
  --lib fa3=$S/lib/libfa3_40.so --lib fa3_r24=$S/lib/libfa3_24.so --no-causal --out $T/r1-attention.md --command "$C" \
  > $T/r1-attention.log 2>&1
echo "attention rc=$?"
for round in 1 2; do
  for v in 40 24; do
    timeout 120 $S/gm$v --out $T/r1-table-gm$v-$round.md --command "$C" > /dev/null 2>&1
    echo "gm$v table round $round rc=$? $(grep 'pick / cuBLAS' $T/r1-table-gm$v-$round.md | head -1)"
  done
done
for v in gba40 gba_c40 gba24; do
  timeout 300 python3 bench/fused_bench.py --lib gemm_bias_act_gelu=$S/lib/lib$v.so --only gemm_bias_act_gelu --sweep 30 \
    --out $T/r1-$v.md --command "$C" > $T/r1-$v.log 2>&1
  echo "$v rc=$? $(grep 'sweep vs cuBLASLt' $T/r1-$v.md)"
done
tar czf $OUT/r1.tar.gz -C $T .
