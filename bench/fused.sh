#!/usr/bin/env bash
# bench/fused.sh [bench/fused_bench.py options...]: times loom's generated fused GEMM kernels (dual_gemm,
# gemm_bias_act_<act>, gemm_residual, gemm_reduce_<mapping>, add_gemm, relu_gemm) against cuBLAS /
# cuBLASLt through torch, unfused torch and fused Triton kernels, on the GPU machine, in one device
# call that carries build-gpu/gen.
#
# Every directory ${LOOM_GEN_DIR:-build-gpu/gen}/<case>/ whose name is one of fused_bench.py's cases
# holds one generated artifact (<entry>.cu); it is compiled (timed) into a shared library that exports
# only loom_* and passed as --lib <case>=<lib>. Generate them on the development machine with
#   bash bench/fused.sh --prepare
# (build/loom compile of each example; gemm_bias_act once per activation). Options after the script
# name go to fused_bench.py (--sweep N, --only CASE, --shapes ..., --reps N, --kernels, --seed S).
#
# Results in $OUT (default build-gpu/out): fused.md (commit it as bench/results/<date>-<device>-fused.md)
# and fused-compile.txt (nvcc times, ptxas report). Exit status: 0 if every loom output was correct.
set -u -o pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
build=${LOOM_BUILD_DIR:-$root/build-gpu}
gen=${LOOM_GEN_DIR:-$build/gen}
out=${OUT:-$build/out}
cases="dual_gemm gemm_bias_act_identity gemm_bias_act_relu gemm_bias_act_gelu gemm_bias_act_silu gemm_bias_act_gelu_fast gemm_residual
       gemm_reduce_registers gemm_reduce_shared add_gemm relu_gemm"

if [ "${1:-}" = "--prepare" ]; then  # on the development machine: generate every case that compiles
  loom=${LOOM:-build/loom}
  for a in identity relu gelu silu gelu_fast; do bash tests/gpu/e2e/gemm_bias_act.sh --gen "$a" "$gen" || echo "gemm_bias_act_$a: not generated"; done
  for ex in dual_gemm gemm_residual add_gemm relu_gemm; do
    [ -f "examples/$ex/$ex.loom" ] && { "$loom" compile "examples/$ex/$ex.loom" -o "$gen/$ex" || echo "$ex: not generated"; }
  done
  # gemm_reduce's two mappings are two programs: row sums in registers, and in shared memory
  "$loom" compile examples/gemm_reduce/gemm_reduce.loom -o "$gen/gemm_reduce_registers" || echo "gemm_reduce_registers: not generated"
  "$loom" compile examples/gemm_reduce_shared/gemm_reduce_shared.loom -o "$gen/gemm_reduce_shared" ||
    echo "gemm_reduce_shared: not generated"
  exit 0
fi

work=$build/device-fused
mkdir -p "$out" "$work/lib"
export PATH=/usr/local/cuda/bin:$PATH
cuda_home=$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")
command_line="bash bench/fused.sh $*"
nvcc_flags=(-std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -I"$root/runtime")
printf '{ global: loom_*; local: *; };\n' >"$work/exports.map"
report=$out/fused-compile.txt
echo "# nvcc ${nvcc_flags[*]} -I<dir> <dir>/<entry>.cu -lcuda ($(nvcc --version 2>&1 | tail -1))" >"$report"
libs=()
pids=()
for name in $cases; do
  dir=$gen/$name
  # tests/gpu/prepare.sh writes examples/gemm_reduce (row sums in registers) as gen/gemm_reduce
  [ "$name" = gemm_reduce_registers ] && [ ! -d "$dir" ] && dir=$gen/gemm_reduce
  cu=$(ls "$dir"/*.cu 2>/dev/null | head -1)
  [ -n "$cu" ] || continue
  so=$work/lib/lib$name.so
  ( t0=$(date +%s.%N)
    if nvcc "${nvcc_flags[@]}" -I"$dir" -Xptxas -v "$cu" -o "$so" -Xlinker --version-script="$work/exports.map" \
        -Xlinker -Bsymbolic -L"$cuda_home/lib64/stubs" -lcuda >"$work/nvcc_$name.log" 2>&1; then
      echo "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" >"$work/nvcc_$name.ok"
    else rm -f "$so" "$work/nvcc_$name.ok"; fi ) &
  pids+=($!)
done
for p in "${pids[@]+"${pids[@]}"}"; do wait "$p"; done
for name in $cases; do
  [ -f "$work/nvcc_$name.log" ] || continue
  if [ -f "$work/nvcc_$name.ok" ] && [ -f "$work/lib/lib$name.so" ]; then
    echo "nvcc $name: ok, $(cat "$work/nvcc_$name.ok") s (in parallel with the others)"
    { echo; echo "## $name: nvcc $(cat "$work/nvcc_$name.ok") s"; grep -E 'registers|spill|stack' "$work/nvcc_$name.log"; } >>"$report"
    libs+=(--lib "$name=$work/lib/lib$name.so")
  else
    echo "nvcc $name: FAILED; last lines:"; tail -n 20 "$work/nvcc_$name.log"
    { echo; echo "## $name: nvcc FAILED"; tail -n 40 "$work/nvcc_$name.log"; } >>"$report"
  fi
done
[ ${#libs[@]} -eq 0 ] && echo "fused.sh: no loom library in $gen"
PYTHONUNBUFFERED=1 python3 bench/fused_bench.py "${libs[@]+"${libs[@]}"}" --out "$out/fused.md" --command "$command_line" "$@"
rc=$?
echo "fused.sh: results in $out/fused.md, $report (exit $rc)"
exit $rc
