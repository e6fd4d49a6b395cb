#!/usr/bin/env bash
# tests/gpu/e2e/gemm_residual.sh WORK: end-to-end test of loom's generated gemm_residual
# (examples/gemm_residual, D = A·B + alpha·C). Needs ${LOOM_GEN_DIR:-build-gpu/gen}/gemm_residual/
# (loom compile examples/gemm_residual/gemm_residual.loom -o build-gpu/gen/gemm_residual on the
# development machine; or, when $LOOM names a loom binary here, generated into WORK). Builds
# tests/gpu/gemm_residual_correctness.cu against it, runs every shape, then compute-sanitizer
# memcheck, racecheck and synccheck on 129x257x65 (and memcheck on 128x128x64); then the same with
# C read from global memory by the threads (residual_global.sed; memcheck on 129x257x65). Exit
# status 0 only if everything passes.
set -u
WORK=${1:-/tmp}
GEN=${LOOM_GEN_DIR:-build-gpu/gen}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
dir="$GEN/gemm_residual"
if [ ! -f "$dir/gemm_residual.cu" ] && [ -n "${LOOM:-}" ]; then
  dir="$WORK/gemm_residual"
  "$LOOM" compile examples/gemm_residual/gemm_residual.loom -o "$dir" || exit 1
fi
if [ ! -f "$dir/gemm_residual.cu" ]; then echo "no $dir/gemm_residual.cu"; exit 1; fi
"$NVCC" -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -I"$dir" \
  tests/gpu/gemm_residual_correctness.cu "$dir/gemm_residual.cu" -lcuda -o "$WORK/gemm_residual_e2e" || exit 1
fail=0
"$WORK/gemm_residual_e2e" || fail=1
for tool in memcheck racecheck synccheck; do
  echo "== compute-sanitizer --tool $tool, 129x257x65, every mapping by index"
  "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$WORK/gemm_residual_e2e" --by-index 129x257x65 || fail=1
done
echo "== compute-sanitizer --tool memcheck, 128x128x64"
"$SAN" --tool memcheck --error-exitcode 99 --print-limit 20 "$WORK/gemm_residual_e2e" --only 128x128x64 || fail=1
# The same program with C read from global memory by the threads (tests/gpu/e2e/residual_global.sed:
# loom::rt::ldg_frag_pairs in the epilogue), from $GEN/gemm_residual_global or generated here.
gdir="$GEN/gemm_residual_global"
if [ ! -f "$gdir/gemm_residual.cu" ] && [ -n "${LOOM:-}" ]; then
  gdir="$WORK/gemm_residual_global"
  mkdir -p "$gdir"
  sed -f tests/gpu/e2e/residual_global.sed examples/gemm_residual/gemm_residual.loom >"$gdir/gemm_residual.loom"
  "$LOOM" compile "$gdir/gemm_residual.loom" -o "$gdir" || fail=1
fi
if [ ! -f "$gdir/gemm_residual.cu" ]; then echo "no $gdir/gemm_residual.cu"; exit 1; fi
echo "== gemm_residual, C from global"
if "$NVCC" -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -I"$gdir" \
    tests/gpu/gemm_residual_correctness.cu "$gdir/gemm_residual.cu" -lcuda -o "$WORK/gemm_residual_global_e2e"; then
  "$WORK/gemm_residual_global_e2e" || fail=1
  echo "== compute-sanitizer --tool memcheck, C from global, 129x257x65"
  "$SAN" --tool memcheck --error-exitcode 99 --print-limit 20 "$WORK/gemm_residual_global_e2e" --only 129x257x65 || fail=1
else
  fail=1
fi
exit $fail
