#!/usr/bin/env bash
# Session 20, round 3: issue 10's full attention e2e (every shape, error paths, sanitizers) on the
# committed kernels; D = 64 with 160- and 192-key tiles; dual_gemm's listed shapes.
set -u
export PATH=/usr/local/cuda/bin:$PATH
S=build-gpu/s20
O=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; date -u
echo "== softmax_atoms"; timeout 60 $S/bin/softmax_atoms 2>&1 | tail -2
for v in bc192 bc160; do
  for sh in 2x200x300x64 1x1000x1000x64 3x1000x64x64 1x128x1000x64 1x77x77x64 4x4096x4096x64; do
    timeout 20 $S/bin/ac_$v --only $sh --seed 5 > /tmp/ac.log 2>&1; rc=$?
    echo "$v $sh: rc=$rc $(tail -1 /tmp/ac.log)"
    [ $rc = 124 ] && { echo "TIMEOUT: stopping"; exit 1; }
  done
done
date -u
echo "== bench D = 64"
LOOM_GEN_DIR=$S/gen LOOM_BUILD_DIR=/tmp/lb OUT=$O timeout 300 bash bench/attention.sh --reps 20 --only-d 64 --no-causal > $O/bench64.log 2>&1; echo "bench rc=$?"
grep -E "^- loom|agree" $O/bench64.log; cp $O/attention.md $O/attention-d64.md
date -u
echo "== e2e attention (committed kernels)"
timeout 400 bash tests/gpu/e2e/attention.sh $S/gen/flash_attention_2 /tmp/w_fa2 > $O/e2e-fa2.log 2>&1; echo "e2e fa2 rc=$?"; tail -3 $O/e2e-fa2.log
timeout 400 bash tests/gpu/e2e/attention.sh $S/gcausal/flash_attention_3_causal /tmp/w_c > $O/e2e-causal.log 2>&1; echo "e2e causal rc=$?"; tail -3 $O/e2e-causal.log
date -u
echo "== dual_gemm listed"
LOOM_GEN_DIR=$S/fgen LOOM_BUILD_DIR=/tmp/lb2 OUT=$O timeout 300 bash bench/fused.sh --only dual_gemm > $O/dual.log 2>&1; echo "dual rc=$?"
grep -E "geomean|^\| [0-9]" $O/fused.md | head -12
date -u
