#!/usr/bin/env bash
# tests/gpu/e2e/relu_gemm.sh WORK: end-to-end test of loom's generated relu_gemm (examples/relu_gemm,
# C = ReLU(A)·B). Needs ${LOOM_GEN_DIR:-build-gpu/gen}/relu_gemm/ (loom compile
# examples/relu_gemm/relu_gemm.loom -o build-gpu/gen/relu_gemm on the development machine; or, when
# $LOOM names a loom binary here, generated into WORK). Builds tests/gpu/relu_gemm_correctness.cu
# against it, runs every shape and the comparison with ReLU + cuBLAS (--bench: printed, not a pass/fail), then
# compute-sanitizer memcheck, racecheck and synccheck on 129x257x65, every mapping by index (and memcheck on the tile
# shape 128x256x64). Exit status 0 only if everything passes.
set -u
WORK=${1:-/tmp}
GEN=${LOOM_GEN_DIR:-build-gpu/gen}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
dir="$GEN/relu_gemm"
if [ ! -f "$dir/relu_gemm.cu" ] && [ -n "${LOOM:-}" ]; then
  dir="$WORK/relu_gemm"
  "$LOOM" compile examples/relu_gemm/relu_gemm.loom -o "$dir" || exit 1
fi
if [ ! -f "$dir/relu_gemm.cu" ]; then echo "no $dir/relu_gemm.cu"; exit 1; fi
"$NVCC" -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -I"$dir" \
  tests/gpu/relu_gemm_correctness.cu "$dir/relu_gemm.cu" -lcuda -lcublas -o "$WORK/relu_gemm_e2e" || exit 1
fail=0
"$WORK/relu_gemm_e2e" --bench || fail=1
for tool in memcheck racecheck synccheck; do
  echo "== compute-sanitizer --tool $tool, 129x257x65, every mapping by index"
  "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$WORK/relu_gemm_e2e" --by-index 129x257x65 || fail=1
done
echo "== compute-sanitizer --tool memcheck, 128x256x64"
"$SAN" --tool memcheck --error-exitcode 99 --print-limit 20 "$WORK/relu_gemm_e2e" --only 128x256x64 || fail=1
exit $fail
