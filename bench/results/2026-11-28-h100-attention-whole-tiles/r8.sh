#!/usr/bin/env bash
# Session 20, round 8: relu_gemm after whole-tile versioning (its K loop): examples/relu_gemm new vs
# the previous commit's (fused bench, listed shapes), and the tensor-expression kernels (bench/tx.sh).
set -u
S=build-gpu/s20
O=${OUT:-/tmp/out}
date -u
for g in fgen fgen_old; do
  LOOM_GEN_DIR=$S/$g LOOM_BUILD_DIR=/tmp/fb_$g OUT=$O timeout 200 bash bench/fused.sh --only relu_gemm > $O/relu_$g.log 2>&1; echo "fused $g rc=$?"
  cp $O/fused.md $O/relu_gemm-$g.md 2>/dev/null
  grep -E "relu_gemm [0-9]|geomean" $O/relu_$g.log
done
date -u
LOOM_GEN_DIR=$S/txgen LOOM_BUILD_DIR=/tmp/txb OUT=$O timeout 300 bash bench/tx.sh > $O/tx.log 2>&1; echo "tx rc=$?"
grep -E "geomean|relu_gemm" $O/tx.md | head -20
date -u
