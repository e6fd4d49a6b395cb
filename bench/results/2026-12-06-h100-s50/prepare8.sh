#!/usr/bin/env bash
# Session 50: build-gpu/s50g.tar.xz for r8.sh: the committed examples/gemm_bias_act (20 mappings, GELU) as a library
# for bench/fused_bench.py (the 19 before it: build-gpu/s49c.tar.xz's ext library, session 49).
set -eu
S=${S:-build-gpu/s50g}
L=${LOOM:-build/loom}
rm -rf $S; mkdir -p $S/gen $S/lib20
cp examples/gemm_bias_act/gemm_bias_act.loom $S/gen/
$L compile $S/gen/gemm_bias_act.loom -o $S/gen
. bench/results/2026-12-05-h100-s46/so.sh
so $S/lib20 gemm_bias_act_gelu $S/gen
tar cf - $S/lib20/lib/*.so | xz -T2 > $S.tar.xz
ls -la $S.tar.xz
