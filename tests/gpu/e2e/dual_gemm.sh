#!/usr/bin/env bash
# tests/gpu/e2e/dual_gemm.sh WORK: end-to-end test of loom's generated dual_gemm (examples/dual_gemm,
# D = silu(A·B1) ⊙ (A·B2)). Needs ${LOOM_GEN_DIR:-build-gpu/gen}/dual_gemm/ (loom compile
# examples/dual_gemm/dual_gemm.loom -o build-gpu/gen/dual_gemm on the development machine). Builds
# tests/gpu/dual_gemm_correctness.cu against it, runs every shape, then compute-sanitizer memcheck,
# racecheck and synccheck on 129x257x65. Exit status 0 only if everything passes.
set -u
WORK=${1:-/tmp}
GEN=${LOOM_GEN_DIR:-build-gpu/gen}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -f "$GEN/dual_gemm/dual_gemm.cu" ]; then echo "no $GEN/dual_gemm/dual_gemm.cu"; exit 1; fi
"$NVCC" -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -I"$GEN/dual_gemm" \
  tests/gpu/dual_gemm_correctness.cu "$GEN/dual_gemm/dual_gemm.cu" -lcuda -o "$WORK/dual_gemm_e2e" || exit 1
fail=0
"$WORK/dual_gemm_e2e" || fail=1
for tool in memcheck racecheck synccheck; do
  echo "== compute-sanitizer --tool $tool, 129x257x65"
  "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$WORK/dual_gemm_e2e" --only 129x257x65 || fail=1
done
exit $fail
