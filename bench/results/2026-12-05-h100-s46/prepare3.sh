#!/usr/bin/env bash
# Session 46: what r3.sh runs, built here into build-gpu/s46c and packed as build-gpu/s46c.tar.xz.
set -eu
S=build-gpu/s46c
rm -rf $S; mkdir -p $S
bash bench/results/2026-12-05-h100-s46/streamk.sh $S/gen
${LOOM:-build/loom} compile $S/gen/gemm.loom -o $S/gen
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I$S/gen -DLOOM_HAVE_GEMM \
  -DLOOM_MAPPINGS=32 bench/gemm_mappings.cu -L/usr/local/cuda/lib64/stubs -lcuda -lcublas -Xptxas -v -o $S/gm > $S/gm.log 2>&1
# examples/gemm_bias_act (gelu_fast) as committed, and with regs(24, 160) on its two 192 x 192 mappings
mkdir -p $S/gen/g15 $S/gen/g15r $S/lib
bash tests/gpu/e2e/gemm_bias_act.sh --gen gelu_fast $S/gen/g15 > /dev/null
python3 - <<'PY'
S = "build-gpu/s46c"
parts = open(S + "/gen/g15/gemm_bias_act_gelu_fast/gemm_bias_act.loom").read().split("\nmapping sm_90a")
for i in (len(parts) - 2, len(parts) - 1):
    assert "tune(U=192, V=192)" in parts[i], i
    parts[i] = parts[i].replace(" smem(227KB);", " regs(24, 160) smem(227KB);", 1)
open(S + "/gen/g15r/gemm_bias_act.loom", "w").write("\nmapping sm_90a".join(parts))
PY
${LOOM:-build/loom} compile $S/gen/g15r/gemm_bias_act.loom -o $S/gen/g15r
python3 bench/results/2026-12-04-h200-bymap/labels.py $S/gen/g15r/gemm_bias_act.loom > $S/gen/g15.labels
. bench/results/2026-12-05-h100-s46/so.sh
so $S g15 $S/gen/g15/gemm_bias_act_gelu_fast
so $S g15r $S/gen/g15r
tar cf - $S/gm $S/lib/*.so $S/gen/g15.labels | xz -T2 > build-gpu/s46c.tar.xz
