#!/usr/bin/env bash
# tests/gpu/e2e/gemm_multicast.sh WORK: end-to-end test of loom's gemm with multicast(2) on its
# non-split mappings (clusters of 2 blocks on neighbouring row tiles sharing the B panel by TMA
# multicast; docs/codegen.md, "Multicast"). Needs ${LOOM_GEN_DIR:-build-gpu/gen}/gemm_multicast/
# (written by `bash bench/run.sh --prepare`, which applies tests/gpu/e2e/multicast.sed to
# examples/gemm/gemm.loom). Builds tests/gpu/gemm_correctness.cu against it: every shape, then
# every mapping by index on 129x257x65, 300x200x1000 and 1000^3 (odd numbers of row tiles: the
# second block of the last cluster runs a tile past the edge); then compute-sanitizer memcheck,
# racecheck and synccheck on every mapping at 300x200x1000 (bench/gemm_mappings.cu --check-only).
set -u
WORK=${1:-/tmp}
GEN=${LOOM_GEN_DIR:-build-gpu/gen}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
D=$GEN/gemm_multicast
if [ ! -f "$D/gemm.cu" ]; then echo "no $D/gemm.cu: run bash bench/run.sh --prepare first"; exit 1; fi
n=$(grep -o "one per mapping ([0-9]*)" "$D/gemm.cu" | grep -o "[0-9]*")
FLAGS=(-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I"$D" -DLOOM_HAVE_GEMM)
"$NVCC" "${FLAGS[@]}" tests/gpu/gemm_correctness.cu "$D/gemm.cu" -lcuda -o "$WORK/gemm_multicast" &
"$NVCC" "${FLAGS[@]}" -DLOOM_MAPPINGS="${n:-1}" bench/gemm_mappings.cu -lcuda -lcublas -o "$WORK/gemm_multicast_mappings" &
wait
[ -x "$WORK/gemm_multicast" ] && [ -x "$WORK/gemm_multicast_mappings" ] || exit 1
fail=0
"$WORK/gemm_multicast" --skip-large || fail=1
for tool in memcheck racecheck synccheck; do
  echo "== compute-sanitizer --tool $tool, every mapping at 300x200x1000"
  "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$WORK/gemm_multicast_mappings" --out "$WORK/gemm_multicast_check.md" \
    --shape 300x200x1000 --check-only || fail=1
done
exit $fail
