#!/usr/bin/env bash
# On the development machine: the kernels of r1.sh, into build-gpu/s27 (nvcc 13, sm_90a).
#   LOOM40 = build/loom at this commit (the rule: the DMA warpgroup keeps 40 registers, the compute
#            warpgroups share the rest); LOOM24 = the same with kDmaRegs = 24 in
#            src/passes/warp_specialize.cpp (the DMA warpgroup keeps setmaxnreg's least).
#   g40/, g24/: examples/gemm (-> gm40, gm24: bench/gemm_mappings.cu, 15 mappings), examples/flash_attention_2
#   and _3 (-> libfa*.so, as bench/attention.sh builds them), examples/gemm_bias_act (GELU; -> libgba*.so as
#   bench/fused.sh builds them); g40/gba_c: gba_c.loom = examples/gemm_bias_act + 192 x 192 tiles on three
#   compute warpgroups with regs(24, 160), alone and with multicast(2).
set -eu
L40=${LOOM40:?} L24=${LOOM24:?}
S=build-gpu/s27
R=bench/results/2026-11-29-h200-regs
mkdir -p $S/lib
for v in 40 24; do
  L=$(eval echo \$L$v)
  $L compile examples/gemm/gemm.loom -o $S/g$v/gemm
  $L compile examples/flash_attention_2/flash_attention_2.loom -o $S/g$v/fa2
  $L compile examples/flash_attention_3/flash_attention_3.loom -o $S/g$v/fa3
  $L compile examples/gemm_bias_act/gemm_bias_act.loom -o $S/g$v/gba
done
$L40 compile $R/gba_c.loom -o $S/g40/gba_c
NV=/usr/local/cuda/bin/nvcc
SO=(-std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime)
printf '{ global: loom_*; local: *; };\n' > $S/exports.map
lib() {  # lib NAME DIR ENTRY
  $NV "${SO[@]}" -I$2 -Xptxas -v $2/$3.cu -o $S/lib/lib$1.so -Xlinker --version-script=$S/exports.map -Xlinker -Bsymbolic \
    -L/usr/local/cuda/lib64/stubs -lcuda > $S/lib/$1.log 2>&1 && echo "ok $1" || echo "FAIL $1"
}
gm() {  # gm V
  $NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I$S/g$1/gemm -DLOOM_HAVE_GEMM \
    -DLOOM_MAPPINGS=15 bench/gemm_mappings.cu -lcuda -lcublas -o $S/gm$1 > $S/gm$1.log 2>&1 && echo "ok gm$1" || echo "FAIL gm$1"
}
lib fa2_40 $S/g40/fa2 mha & lib fa2_24 $S/g24/fa2 mha & wait
lib fa3_40 $S/g40/fa3 mha & lib fa3_24 $S/g24/fa3 mha & wait
lib gba40 $S/g40/gba gemm_bias_act & lib gba24 $S/g24/gba gemm_bias_act & wait
lib gba_c40 $S/g40/gba_c gemm_bias_act & gm 40 & wait
gm 24
# The correctness harnesses (the commands of tests/gpu/e2e/attention.sh and gemm_bias_act.sh):
e2e_att() {  # e2e_att V DIR
  $NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -I$S/g$1/$2 \
    tests/gpu/attention_correctness.cu $S/g$1/$2/mha.cu -lcuda -o $S/att_$2_$1 > $S/att_$2_$1.log 2>&1 && echo "ok att_$2_$1" || echo "FAIL att_$2_$1"
}
e2e_att 24 fa2 & e2e_att 24 fa3 & wait
$NV -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -DLOOM_ACT=2 -Iruntime -Itests/gpu -I$S/g40/gba_c \
  tests/gpu/gemm_bias_act_correctness.cu $S/g40/gba_c/gemm_bias_act.cu -lcuda -o $S/gba_c_e2e > $S/gba_c_e2e.log 2>&1 && echo "ok gba_c_e2e" || echo "FAIL gba_c_e2e"
