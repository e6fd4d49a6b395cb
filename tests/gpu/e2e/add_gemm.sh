#!/usr/bin/env bash
# tests/gpu/e2e/add_gemm.sh WORK: end-to-end test of loom's generated add_gemm (examples/add_gemm,
# E = A·B + C·D). Needs ${LOOM_GEN_DIR:-build-gpu/gen}/add_gemm/ (loom compile
# examples/add_gemm/add_gemm.loom -o build-gpu/gen/add_gemm on the development machine; or, when
# $LOOM names a loom binary here, generated into WORK). Builds tests/gpu/add_gemm_correctness.cu
# against it, runs every shape and every mapping by index and the cuBLAS comparison (--bench: printed,
# not a pass/fail), then compute-sanitizer memcheck, racecheck and synccheck on 129x257x65x70 through
# the pick and on every mapping by index at 129x257x65 (L = 70), and memcheck on the tile shape
# 128x256x64x64. Exit status 0 only if everything passes.
set -u
WORK=${1:-/tmp}
GEN=${LOOM_GEN_DIR:-build-gpu/gen}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
dir="$GEN/add_gemm"
if [ ! -f "$dir/add_gemm.cu" ] && [ -n "${LOOM:-}" ]; then
  dir="$WORK/add_gemm"
  "$LOOM" compile examples/add_gemm/add_gemm.loom -o "$dir" || exit 1
fi
if [ ! -f "$dir/add_gemm.cu" ]; then echo "no $dir/add_gemm.cu"; exit 1; fi
"$NVCC" -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -I"$dir" \
  tests/gpu/add_gemm_correctness.cu "$dir/add_gemm.cu" -lcuda -lcublas -o "$WORK/add_gemm_e2e" || exit 1
fail=0
"$WORK/add_gemm_e2e" --bench || fail=1
for tool in memcheck racecheck synccheck; do
  echo "== compute-sanitizer --tool $tool, 129x257x65x70"
  "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$WORK/add_gemm_e2e" --only 129x257x65x70 || fail=1
done
for tool in memcheck racecheck synccheck; do
  echo "== compute-sanitizer --tool $tool, every mapping by index, 129x257x65 (L = 70)"
  "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$WORK/add_gemm_e2e" --by-index 129x257x65 || fail=1
done
echo "== compute-sanitizer --tool memcheck, 128x256x64x64"
"$SAN" --tool memcheck --error-exitcode 99 --print-limit 20 "$WORK/add_gemm_e2e" --only 128x256x64x64 || fail=1
exit $fail
