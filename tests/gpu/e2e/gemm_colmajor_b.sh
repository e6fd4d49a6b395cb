#!/usr/bin/env bash
# tests/gpu/e2e/gemm_colmajor_b.sh WORK: end-to-end test of loom's gemm with a column-major B
# (examples/gemm with `layout(B: col_major)`; B's order is a mapping choice). Needs
# ${LOOM_GEN_DIR:-build-gpu/gen}/gemm_colmajor_b/ (written by `bash bench/run.sh --prepare`, which
# applies tests/gpu/e2e/colmajor_b.sed to examples/gemm/gemm.loom and runs loom compile). Builds
# tests/gpu/gemm_colmajor_b.cu against it, runs every shape, then compute-sanitizer memcheck,
# racecheck and synccheck on 129x257x65 (small-problem mapping) and 1153x2049x65 (default).
set -u
WORK=${1:-/tmp}
GEN=${LOOM_GEN_DIR:-build-gpu/gen}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -f "$GEN/gemm_colmajor_b/gemm.cu" ]; then echo "no $GEN/gemm_colmajor_b/gemm.cu: run bash bench/run.sh --prepare first"; exit 1; fi
"$NVCC" -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -I"$GEN/gemm_colmajor_b" \
  tests/gpu/gemm_colmajor_b.cu "$GEN/gemm_colmajor_b/gemm.cu" -lcuda -o "$WORK/gemm_colmajor_b" || exit 1
fail=0
"$WORK/gemm_colmajor_b" || fail=1
for tool in memcheck racecheck synccheck; do
  for shape in 129x257x65 1153x2049x65; do
    echo "== compute-sanitizer --tool $tool, $shape"
    "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$WORK/gemm_colmajor_b" --only "$shape" || fail=1
  done
done
exit $fail
