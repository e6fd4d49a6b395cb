#!/usr/bin/env bash
# bench/attention.sh [bench/attention_bench.py options...]: times loom's generated attention kernels
# (examples/flash_attention_2, examples/flash_attention_3; entry `mha`) against cuDNN, FlashAttention-2
# (both through torch's scaled_dot_product_attention) and a Triton kernel, on the GPU machine, in one
# device call that carries build-gpu/gen.
#
# For every generated directory ${LOOM_GEN_DIR:-build-gpu/gen}/flash_attention_{2,3}*/ holding mha.cu,
# it compiles mha.cu (timed) into a shared library that exports only loom_* (nvcc -shared -Xcompiler
# -fPIC ... -lcuda), and passes it to bench/attention_bench.py as --lib fa2=... / fa3=...; a
# directory whose name contains "causal" (flash_attention_2_causal, say) serves the causal rows, and
# one with another suffix gets a column of its own (flash_attention_2_opt: column "loom fa2_opt").
# Directories that are missing or fail to compile leave their columns "n/a": the peers are measured
# regardless. Options after the script name go to attention_bench.py (--reps N, --tokens T, --only-d D,
# --only-s S, --no-causal, --seed S).
#
# Results in $OUT (default build-gpu/out): attention.md (the table: commit it as
# bench/results/<date>-<device>-attention.md), attention-compile.txt (nvcc times, ptxas report).
# Environment: OUT, LOOM_BUILD_DIR (default build-gpu), LOOM_GEN_DIR (default $LOOM_BUILD_DIR/gen).
# Exit status: 0 if the bench ran and every loom output agreed with cuDNN; nonzero otherwise.
set -u -o pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
build=${LOOM_BUILD_DIR:-$root/build-gpu}
gen=${LOOM_GEN_DIR:-$build/gen}
out=${OUT:-$build/out}
work=$build/device-attention
mkdir -p "$out" "$work/lib"
export PATH=/usr/local/cuda/bin:$PATH
cuda_home=$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")
command_line="bash bench/attention.sh $*"

# Static cudart (nvcc's default) inside each library: no dependence on which libcudart torch loaded.
nvcc_flags=(-std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -I"$root/runtime")
printf '{ global: loom_*; local: *; };\n' >"$work/exports.map"
report=$out/attention-compile.txt
echo "# nvcc ${nvcc_flags[*]} -I<dir> <dir>/mha.cu -lcuda ($(nvcc --version 2>&1 | tail -1))" >"$report"
libs=() secs=()
for dir in "$gen"/flash_attention_2* "$gen"/flash_attention_3*; do
  [ -f "$dir/mha.cu" ] || continue
  name=$(basename "$dir")
  # flash_attention_2 -> fa2, flash_attention_3_causal -> fa3:causal, flash_attention_2_opt -> fa2_opt
  col=${name#flash_attention_}
  col=fa${col/_causal/}
  case $name in *causal*) col=$col:causal ;; esac
  so=$work/lib/lib$name.so
  t0=$(date +%s.%N)
  if nvcc "${nvcc_flags[@]}" -I"$dir" -Xptxas -v "$dir/mha.cu" -o "$so" -Xlinker --version-script="$work/exports.map" \
      -Xlinker -Bsymbolic -L"$cuda_home/lib64/stubs" -lcuda >"$work/nvcc_$name.log" 2>&1; then
    dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    echo "nvcc $name: ok, ${dt} s"
    { echo; echo "## $name: nvcc ${dt} s"; grep -E 'registers|spill|smem|stack' "$work/nvcc_$name.log"; } >>"$report"
    libs+=(--lib "$col=$so")
    secs+=(--nvcc-seconds "$name=$dt")
  else
    echo "nvcc $name: FAILED (its columns will be n/a); last lines:"
    tail -n 20 "$work/nvcc_$name.log"
    { echo; echo "## $name: nvcc FAILED"; tail -n 40 "$work/nvcc_$name.log"; } >>"$report"
    secs+=(--nvcc-seconds "$name=FAILED")
  fi
done
[ ${#libs[@]} -eq 0 ] && echo "attention.sh: no loom library in $gen/flash_attention_{2,3}*: measuring the peers only"
PYTHONUNBUFFERED=1 python3 bench/attention_bench.py "${libs[@]+"${libs[@]}"}" "${secs[@]+"${secs[@]}"}" \
  --out "$out/attention.md" --command "$command_line" "$@"
rc=$?
echo "attention.sh: results in $out/attention.md, $report (exit $rc)"
exit $rc
