#!/usr/bin/env bash
# tests/gpu/e2e/tx.sh WORK: end-to-end test of the CUDA that `loom compile x.tx -o DIR` generates for
# the contraction examples of examples/tx (gemm, batched_gemm, gemm_bias_relu, add_gemm, mlp, relu_gemm; issue 13).
#
# Needs ${LOOM_GEN_DIR:-build-gpu/gen}/tx/<example>/ (written on the development machine by
# `bash bench/tx.sh --prepare`, or here when $LOOM names a loom binary). Where the generated header
# has the hand-written example's signature, the example's own harness is reused, built against the
# generated kernel (fresh random inputs, poisoned output, double-precision reference on the GPU,
# stray-write checks, shapes that are not tile multiples and large ones):
#   gemm.tx           tests/gpu/gemm_correctness.cu (loom_gemm)
#   add_gemm.tx       tests/gpu/add_gemm_correctness.cu (loom_add_gemm: D, A, B, X, Y in that order)
#   gemm_bias_relu.tx tests/gpu/gemm_bias_act_correctness.cu -DLOOM_ACT=1 (ReLU), through a two-line
#                     header that names loom_gemm_bias_relu loom_gemm_bias_act
# and every kernel, including batched_gemm (B transposed: a column-major ABI parameter), relu_gemm and mlp
# (two kernels, H then Y), goes through `python3 bench/tx_bench.py --check-only` (fp32 torch reference,
# poisoned outputs, non-tile and large shapes). Then compute-sanitizer memcheck on one non-tile shape
# of the generated gemm (the launcher's pick), and memcheck and racecheck there on every one of its
# mappings, each forced by index.
# Binaries are built into WORK/tx (kept when already there: TX_BUILD_ONLY=1 builds them on the
# development machine, which has nvcc, so that the device only runs them).
# Exit status 0 only if everything passes.
set -u
WORK=${1:-/tmp}
GEN=${LOOM_GEN_DIR:-build-gpu/gen}/tx
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
EXAMPLES="gemm batched_gemm gemm_bias_relu add_gemm mlp relu_gemm"
B=$WORK/tx
mkdir -p "$B/shim"
for e in $EXAMPLES; do
  if ! ls "$GEN/$e"/*.cu >/dev/null 2>&1 && [ -n "${LOOM:-}" ]; then
    "$LOOM" compile "examples/tx/$e.tx" -o "$GEN/$e" || exit 1
  fi
  if ! ls "$GEN/$e"/*.cu >/dev/null 2>&1; then echo "no $GEN/$e/*.cu: run bash bench/tx.sh --prepare first"; exit 1; fi
done
cuda_home=$(dirname "$(dirname "$NVCC")")
flags=(-std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -Ibench)
printf '#include "gemm_bias_relu.h"\n#define loom_gemm_bias_act loom_gemm_bias_relu\n#define loom_gemm_bias_act_mapping loom_gemm_bias_relu_mapping\n#define loom_gemm_bias_act_mappings loom_gemm_bias_relu_mappings\n#define loom_gemm_bias_act_pick loom_gemm_bias_relu_pick\n' >"$B/shim/gemm_bias_act.h"
build() {  # name, then nvcc arguments
  local name=$1
  shift
  [ -x "$B/$name" ] && return 0
  "$NVCC" "${flags[@]}" "$@" -L"$cuda_home/lib64/stubs" -lcuda -o "$B/$name" >"$B/$name.log" 2>&1 ||
    { echo "nvcc $name FAILED:"; tail -20 "$B/$name.log"; return 1; }
}
fail=0
build gemm_e2e -I"$GEN/gemm" -DLOOM_HAVE_GEMM tests/gpu/gemm_correctness.cu "$GEN/gemm/gemm.cu" & p1=$!
build add_gemm_e2e -I"$GEN/add_gemm" tests/gpu/add_gemm_correctness.cu "$GEN/add_gemm/add_gemm.cu" -lcublas & p2=$!
build gemm_bias_relu_e2e -DLOOM_ACT=1 -I"$B/shim" -I"$GEN/gemm_bias_relu" tests/gpu/gemm_bias_act_correctness.cu \
  "$GEN/gemm_bias_relu/gemm_bias_relu.cu" & p3=$!
for p in $p1 $p2 $p3; do wait "$p" || fail=1; done
bash bench/tx.sh --build-libs "$B/lib" || fail=1
[ "${TX_BUILD_ONLY:-0}" = 1 ] && exit $fail

echo "== generated gemm (gemm.tx) with tests/gpu/gemm_correctness.cu"
"$B/gemm_e2e" --runs 1 || fail=1
echo "== generated add_gemm (add_gemm.tx) with tests/gpu/add_gemm_correctness.cu"
"$B/add_gemm_e2e" || fail=1
echo "== generated gemm_bias_relu (gemm_bias_relu.tx) with tests/gpu/gemm_bias_act_correctness.cu (ReLU)"
"$B/gemm_bias_relu_e2e" || fail=1
echo "== every generated kernel with bench/tx_bench.py --check-only"
libs=()
for so in "$B"/lib/lib*.so; do
  n=$(basename "$so" .so)
  n=${n#lib}
  libs+=(--lib "$n=$so")
done
python3 bench/tx_bench.py --check-only "${libs[@]}" --out "$B/tx-check.md" || fail=1
echo "== compute-sanitizer --tool memcheck, generated gemm at 129x257x65"
"$SAN" --tool memcheck --error-exitcode 99 --print-limit 20 "$B/gemm_e2e" --only 129x257x65 --runs 1 || fail=1
# Every mapping of the generated gemm forced there (the default 128 x 256 tiles and the tile model's
# alternatives: smaller tiles on one and two warpgroups, split-K): memcheck and racecheck.
n=$(grep -o "one per mapping ([0-9]*)" "$GEN/gemm/gemm.cu" | grep -o "[0-9]*")
for m in $(seq 0 $((${n:-1} - 1))); do
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer --tool $tool, generated gemm at 129x257x65 on mapping $m"
    "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$B/gemm_e2e" --only 129x257x65 --mapping "$m" --runs 1 || fail=1
  done
done
exit $fail
