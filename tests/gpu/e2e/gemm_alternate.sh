#!/usr/bin/env bash
# tests/gpu/e2e/gemm_alternate.sh WORK [NAME]: end-to-end test of loom's gemm with alternate(2) (two
# teams of one compute warpgroup taking the block's 64 x 256 tiles in turn; docs/codegen.md, "Teams
# taking the tiles in turn"). Needs ${LOOM_GEN_DIR:-build-gpu/gen}/NAME/ (default gemm_alternate;
# written by `bash bench/run.sh --prepare`, which applies tests/gpu/e2e/alternate.sed to
# examples/gemm's default mapping; gemm_pingpong: tests/gpu/e2e/pingpong.sed, 128 x 128 tiles a
# warpgroup with multicast(2); gemm_width224: tests/gpu/e2e/widths.sed, 128 x 224 tiles; gemm_kteams:
# tests/gpu/e2e/kteams.sed, two teams sharing each 64 x 128 tile's K loop). Builds tests/gpu/gemm_correctness.cu against it (every shape: blocks with odd
# and even tile counts, K loops shorter and longer than the ring), then compute-sanitizer memcheck,
# racecheck and synccheck of that test at 129x257x65 and 4959x800x776 (312 tiles: blocks of two
# and three tiles, 13 K steps to a tile against a 5-deep ring).
set -u
WORK=${1:-/tmp}
GEN=${LOOM_GEN_DIR:-build-gpu/gen}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
NAME=${2:-gemm_alternate}
D=$GEN/$NAME
if [ ! -f "$D/gemm.cu" ]; then echo "no $D/gemm.cu: run bash bench/run.sh --prepare first"; exit 1; fi
FLAGS=(-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I"$D" -DLOOM_HAVE_GEMM)
"$NVCC" "${FLAGS[@]}" tests/gpu/gemm_correctness.cu "$D/gemm.cu" -lcuda -o "$WORK/$NAME" || exit 1
fail=0
"$WORK/$NAME" --skip-large || fail=1
for tool in memcheck racecheck synccheck; do
  for shape in 129x257x65 4959x800x776; do
    echo "== compute-sanitizer --tool $tool, $shape"
    "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$WORK/$NAME" --only "$shape" || fail=1
  done
done
exit $fail
