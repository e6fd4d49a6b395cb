#!/usr/bin/env bash
# tests/gpu/e2e/gemm_reduce.sh DIR WORK: end-to-end test of one generated gemm_reduce
# (examples/gemm_reduce: C = A·B, R = row sums of the fp32 product). DIR is the generated directory
# of either mapping (both have the same C ABI):
#   loom compile examples/gemm_reduce/gemm_reduce.loom -o build-gpu/gen/gemm_reduce               (row sums in registers)
#   loom compile examples/gemm_reduce_shared/gemm_reduce_shared.loom -o build-gpu/gen/gemm_reduce_shared  (in shared memory)
#   (bench/run.sh --prepare also writes build-gpu/gen/gemm_reduce_pingpong: one warpgroup a 128 x 128 tile, alternate(2))
# When DIR has no gemm_reduce.cu and $LOOM names a loom binary here, DIR's last component picks the
# source (gemm_reduce_shared -> gemm_reduce_shared.loom; gemm_reduce_pingpong -> gemm_reduce.loom
# edited by tests/gpu/e2e/reduce_pingpong.sed; else gemm_reduce.loom) and it is generated into WORK.
# Builds tests/gpu/gemm_reduce_correctness.cu against it, runs every shape, then compute-sanitizer
# memcheck, racecheck and synccheck on 129x257x65, on the launcher's pick and on every mapping by
# index (and memcheck on 128x256x64).
# Exit status 0 only if everything passes.
set -u
DIR=${1:?usage: gemm_reduce.sh GENERATED_DIR [WORK]}
WORK=${2:-/tmp}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
name=$(basename "$DIR")
if [ ! -f "$DIR/gemm_reduce.cu" ] && [ -n "${LOOM:-}" ]; then
  src=examples/gemm_reduce/gemm_reduce.loom
  [ "$name" = gemm_reduce_shared ] && src=examples/gemm_reduce_shared/gemm_reduce_shared.loom
  DIR="$WORK/$name"
  if [ "$name" = gemm_reduce_pingpong ]; then  # the default mapping edited by tests/gpu/e2e/reduce_pingpong.sed
    mkdir -p "$DIR"
    sed -f tests/gpu/e2e/reduce_pingpong.sed "$src" >"$DIR/$name.loom"
    src="$DIR/$name.loom"
  fi
  "$LOOM" compile "$src" -o "$DIR" || exit 1
fi
if [ ! -f "$DIR/gemm_reduce.cu" ]; then echo "no $DIR/gemm_reduce.cu"; exit 1; fi
bin="$WORK/${name}_e2e"
"$NVCC" -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -I"$DIR" \
  tests/gpu/gemm_reduce_correctness.cu "$DIR/gemm_reduce.cu" -lcuda -o "$bin" || exit 1
fail=0
echo "== $name ($DIR)"
"$bin" || fail=1
for tool in memcheck racecheck synccheck; do
  echo "== compute-sanitizer --tool $tool, 129x257x65"
  "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$bin" --only 129x257x65 || fail=1
done
for tool in memcheck racecheck synccheck; do  # every mapping by index (the launcher's when(fastest) candidates)
  echo "== compute-sanitizer --tool $tool, every mapping at 129x257x65"
  "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$bin" --by-index 129x257x65 || fail=1
done
echo "== compute-sanitizer --tool memcheck, 128x256x64"
"$SAN" --tool memcheck --error-exitcode 99 --print-limit 20 "$bin" --only 128x256x64 || fail=1
exit $fail
