#!/usr/bin/env bash
# tests/gpu/e2e/gemm_unaligned.sh WORK: loom's generated gemm and batched_gemm on tensors the TMA
# cannot address (rows packed tightly at K = 700, N = 1001, ...; bases 2, 4, 8 bytes past 16): the
# launcher runs the async-copy variant, which must be right; padded shapes still take the TMA kernel.
# Needs ${LOOM_GEN_DIR:-build-gpu/gen}/{gemm,batched_gemm}/ (bash bench/run.sh --prepare). Builds
# tests/gpu/gemm_unaligned.cu, runs every case, then compute-sanitizer memcheck, racecheck and
# synccheck on one small unaligned shape per kernel. With BENCH=1 also times the variant against
# cuBLAS. Exit status 0 only if everything passes.
set -u
WORK=${1:-/tmp}
GEN=${LOOM_GEN_DIR:-build-gpu/gen}
RUNTIME=${LOOM_RUNTIME:-runtime}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for e in gemm batched_gemm; do
  if [ ! -f "$GEN/$e/$e.cu" ]; then echo "no $GEN/$e/$e.cu: run bash bench/run.sh --prepare first"; exit 1; fi
done
"$NVCC" -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -I"$RUNTIME" -Ibench -I"$GEN/gemm" \
  -I"$GEN/batched_gemm" -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM tests/gpu/gemm_unaligned.cu \
  "$GEN/gemm/gemm.cu" "$GEN/batched_gemm/batched_gemm.cu" -lcuda -lcublas -o "$WORK/gemm_unaligned" || exit 1
fail=0
"$WORK/gemm_unaligned" || fail=1
for tool in memcheck racecheck synccheck; do
  for c in "333x1001x700 tight" "3x333x1001x700 tight" "1000x1000x1000 pad8 +1"; do
    echo "== compute-sanitizer --tool $tool, $c"
    "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$WORK/gemm_unaligned" --only "$c" || fail=1
  done
done
if [ "${BENCH:-0}" = 1 ]; then "$WORK/gemm_unaligned" --bench || fail=1; fi
exit $fail
