#!/usr/bin/env bash
# tests/gpu/e2e/gemm.sh WORK: end-to-end test of loom's generated gemm and batched_gemm kernels.
# Needs the generated files in ${LOOM_GEN_DIR:-build-gpu/gen}/{gemm,batched_gemm}/ (written on the
# development machine by `bash bench/run.sh --prepare` and carried to the device). Builds
# tests/gpu/gemm_correctness.cu against both, runs every shape (fresh random inputs, poisoned
# output, double-precision reference), then compute-sanitizer memcheck, racecheck and synccheck on
# one partial-tile shape per kernel, on two split-K mappings forced by index where each cluster
# runs several tiles, on the 64 x 64 mapping forced at two shapes and on the two multicast mappings whose
# epilogue stages its tile in parts (forced at 1000^3). Exit status 0 only if
# everything passes.
set -u
WORK=${1:-/tmp}
GEN=${LOOM_GEN_DIR:-build-gpu/gen}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for e in gemm batched_gemm; do
  if [ ! -f "$GEN/$e/$e.cu" ]; then echo "no $GEN/$e/$e.cu: run bash bench/run.sh --prepare first"; exit 1; fi
done
"$NVCC" -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I"$GEN/gemm" \
  -I"$GEN/batched_gemm" -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM tests/gpu/gemm_correctness.cu \
  "$GEN/gemm/gemm.cu" "$GEN/batched_gemm/batched_gemm.cu" -lcuda -o "$WORK/gemm_e2e" || exit 1
fail=0
"$WORK/gemm_e2e" || fail=1
for tool in memcheck racecheck synccheck; do
  # On 132 SMs the cost model runs 129x257x65 on gemm's 128 x 64 tiles, 700x1500x300 on its
  # 128 x 128 ones, 1153x2049x65 on the default 128 x 256 (examples/gemm, when(fastest)), and
  # 272x96x2804 and 3x113x280x3400 on the split-K candidate (128 x 64 tiles, splitk(4)), 274x176x6136
  # on gemm's 64 x 64 tiles with splitk(4), 77x1696x1128 on its 64 x 128 tiles (8 stages, 18 K steps:
  # the ring wraps).
  for shape in 129x257x65 700x1500x300 1153x2049x65 4x129x257x65 272x96x2804 3x113x280x3400 274x176x6136 77x1696x1128; do
    echo "== compute-sanitizer --tool $tool, $shape"
    "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$WORK/gemm_e2e" --only "$shape" --runs 1 || fail=1
  done
  # split-K hand-overs tile after tile: examples/gemm's 128 x 128 splitk(4) (mapping 4) and 64 x 64
  # splitk(4) (mapping 13) forced at 1000x1000x1000, where each cluster runs several tiles.
  # And the 64 x 64 tiles on one warpgroup (mapping 14) forced there (several tiles a block, the ring
  # running on across them) and at 129x257x65 (edge tiles both ways); and the 4-stage multicast
  # mappings 10 and 12, whose epilogue stores its tile in halves or thirds through one staging buffer;
  # and 64 x 128 tiles on clusters of 4 x 2 (mapping 23), whose edge clusters hold ghost tiles there.
  for m in 4 10 12 13 14 23; do
    echo "== compute-sanitizer --tool $tool, 1000x1000x1000 on mapping $m"
    "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$WORK/gemm_e2e" --only 1000x1000x1000 --mapping "$m" --runs 1 || fail=1
  done
  echo "== compute-sanitizer --tool $tool, 129x257x65 on mapping 14"
  "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$WORK/gemm_e2e" --only 129x257x65 --mapping 14 --runs 1 || fail=1
done
exit $fail
