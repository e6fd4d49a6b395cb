#!/usr/bin/env bash
# Session 35, device call 1 (prepare1.sh's binaries in build-gpu/s35a): the GELU forms' rate and
# accuracy (bench/micro/gelu_forms.cu, SASS of its rate kernels); each kernel's activation exactness
# with A = I (gelu_ident.py, cuBLASLt and torch beside loom's forms); where gemm_bias_act's time goes
# (diag.py: cuBLAS, cuBLASLt bias, bias + GELU, loom gemm, loom identity and GELU forms, the listed
# shapes and fused_bench's 30-shape sweep, seed 20261125).
set -u
S=build-gpu/s35a
H=bench/results/2026-12-03-h200-epilogue
C="bash $H/r1.sh"
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
timeout 60 $S/gelu_forms > $OUT/r1-gelu-forms.md 2>&1; echo "gelu_forms rc=$?"; cat $OUT/r1-gelu-forms.md
cuobjdump -sass $S/gelu_forms > $OUT/r1-gelu-forms.sass 2>&1
for f in 0 1 2 3 4; do
  awk -v f="rateILi${f}E" '/Function :/{p=index($0,f)>0} p' $OUT/r1-gelu-forms.sass > /tmp/r$f.sass
  echo "rate<$f>: $(grep -c MUFU /tmp/r$f.sass) MUFU, $(grep -cE '^ +/\*[0-9a-f]{4}\*/' /tmp/r$f.sass) instructions"
done | tee $OUT/r1-gelu-forms-sass.txt
L="--lib gelu=$S/lib/libgba_gelu.so --lib gelu-rcp=$S/lib/libgba_gelu_rcp.so --lib gelu-newton=$S/lib/libgba_gelu_newton.so --lib gelu-tanh=$S/lib/libgba_gelu_tanh.so"
timeout 60 python3 $H/gelu_ident.py $L > $OUT/r1-gelu-ident.md 2>&1; echo "gelu_ident rc=$?"; cat $OUT/r1-gelu-ident.md
G="--gba identity=$S/lib/libgba_identity.so --gba gelu=$S/lib/libgba_gelu.so --gba gelu-rcp=$S/lib/libgba_gelu_rcp.so --gba gelu-newton=$S/lib/libgba_gelu_newton.so --gba gelu-tanh=$S/lib/libgba_gelu_tanh.so"
timeout 330 python3 $H/diag.py --gemm $S/lib/libgemm.so $G --sweep 30 --out $OUT/r1-diag.md --command "$C" > $OUT/r1-diag.log 2>&1
echo "diag rc=$?"; grep -E "^- " $OUT/r1-diag.md; tail -3 $OUT/r1-diag.log
