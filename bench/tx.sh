#!/usr/bin/env bash
# bench/tx.sh [bench/tx_bench.py options...]: times the CUDA that `loom compile x.tx -o DIR` generates
# for examples/tx's contractions against the hand-mapped examples/gemm, cuBLAS and unfused torch
# (bench/tx_bench.py), on the GPU machine, in one device call that carries the generated code.
#
#   bash bench/tx.sh --prepare            # development machine: generate (build/loom) and build the
#                                         # shared libraries (nvcc; no GPU needed)
#   bash bench/tx.sh [--sizes ...]        # GPU machine: build what is missing, check, time
#   bash bench/tx.sh --build-libs DIR     # only build DIR/lib<name>.so (tests/gpu/e2e/tx.sh uses it)
#
# Generated code: ${LOOM_GEN_DIR:-build-gpu/gen}/tx/<example>/ (loom compile examples/tx/<example>.tx)
# and .../tx/examples_gemm/ (loom compile examples/gemm/gemm.loom, the hand-mapped program). Each
# generated .cu becomes one shared library exporting only loom_* (so two loom_gemm can live in one
# process): tx_gemm, gemm (the hand-mapped one), tx_batched_gemm, tx_gemm_bias_relu, tx_add_gemm,
# tx_mlp_H, tx_mlp_Y, tx_relu_gemm. Results: $OUT/tx.md (commit it as bench/results/<date>-<device>-tx.md).
# Exit status: 0 if every generated kernel's output was correct.
set -u -o pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
build=${LOOM_BUILD_DIR:-$root/build-gpu}
gen=${LOOM_GEN_DIR:-$build/gen}/tx
out=${OUT:-$build/out}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
examples="gemm batched_gemm gemm_bias_relu add_gemm mlp relu_gemm"

build_libs() {  # DIR: every generated .cu into DIR/lib<name>.so, in parallel; existing ones are kept
  local dir=$1 cuda_home pids=() rc=0
  mkdir -p "$dir"
  cuda_home=$(dirname "$(dirname "$NVCC")")
  printf '{ global: loom_*; local: *; };\n' >"$dir/exports.map"
  for d in "$gen"/*/; do
    local ex
    ex=$(basename "$d")
    for cu in "$d"*.cu; do
      [ -f "$cu" ] || continue
      local name
      name=$(basename "$cu" .cu)
      [ "$ex" = examples_gemm ] || name=tx_$name
      [ -f "$dir/lib$name.so" ] && continue
      "$NVCC" -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -I"$root/runtime" -I"$d" \
        -Xptxas -v "$cu" -o "$dir/lib$name.so" -Xlinker --version-script="$dir/exports.map" -Xlinker -Bsymbolic \
        -L"$cuda_home/lib64/stubs" -lcuda >"$dir/nvcc_$name.log" 2>&1 &
      pids+=($!)
    done
  done
  for p in "${pids[@]+"${pids[@]}"}"; do wait "$p" || rc=1; done
  [ $rc = 0 ] || { echo "tx.sh: an nvcc failed:"; tail -n 20 "$dir"/nvcc_*.log; }
  return $rc
}

if [ "${1:-}" = "--prepare" ]; then
  loom=${LOOM:-build/loom}
  rc=0
  for ex in $examples; do
    rm -rf "${gen:?}/$ex"
    "$loom" compile "examples/tx/$ex.tx" -o "$gen/$ex" || { echo "$ex: not generated"; rc=1; }
  done
  rm -rf "$gen/examples_gemm"
  "$loom" compile examples/gemm/gemm.loom -o "$gen/examples_gemm" || rc=1
  rm -rf "$build/device-tx/lib"
  build_libs "$build/device-tx/lib" || rc=1
  exit $rc
fi
if [ "${1:-}" = "--build-libs" ]; then
  build_libs "$2"
  exit $?
fi

lib=$build/device-tx/lib
build_libs "$lib" || exit 1
libs=()
for so in "$lib"/lib*.so; do
  n=$(basename "$so" .so)
  libs+=(--lib "${n#lib}=$so")
done
mkdir -p "$out"
PYTHONUNBUFFERED=1 python3 bench/tx_bench.py "${libs[@]}" --out "$out/tx.md" --command "bash bench/tx.sh $*" "$@"
rc=$?
echo "tx.sh: results in $out/tx.md (exit $rc)"
exit $rc
