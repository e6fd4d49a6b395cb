#!/usr/bin/env bash
# shellcheck disable=SC2054  # nvcc flags contain commas on purpose
# bench/run.sh — build, check and time loom's generated GEMM kernels on a GPU, against cuBLAS, with
# a Triton matmul for context. docs/artifact.md explains the pieces.
#
# Two halves, because the lent GPU machine has no network and its image is not known to hold
# loom's build dependencies (nlohmann-json, Z3, CBC; nobody has checked):
#
#   bash bench/run.sh --prepare      on the development machine. Builds loom (build-gpu/), runs
#                                    `loom compile` on examples/gemm and examples/batched_gemm into
#                                    build-gpu/gen/<entry>/ (and, for tests/gpu/run.sh, dual_gemm and
#                                    gemm with a column-major B, with multicast(2) or alternate(2) or as the ping-pong kernel, gemm_residual
#                                    with C from global, into gen/dual_gemm, gen/gemm_colmajor_b,
#                                    gen/gemm_multicast, gen/gemm_alternate, gen/gemm_kteams, gen/gemm_pingpong, gen/gemm_width224, gen/gemm_reduce_pingpong, gen/gemm_residual_global),
#                                    builds examples/consumer_cmake against it and leaves the binary
#                                    in build-gpu/gen/consumer.
#   bash bench/run.sh [options]      on the GPU machine, in ONE device call that carries
#                                    build-gpu/gen. Compiles each generated kernel with nvcc (timed;
#                                    ptxas resource report), builds tests/gpu/gemm_correctness.cu and
#                                    bench/gemm_bench.cu, runs the consumer, the correctness test,
#                                    the bench against cuBLAS and bench/triton_gemm.py, and copies
#                                    the results into $OUT. When build-gpu/gen is missing it tries
#                                    to build loom on the device first.
#
# Options (device half): --ncu SHAPE  also profile one loom launch with Nsight Compute
#                                     (SHAPE as the bench names it: 4096x4096x4096, 8x4096x4096x4096)
#                        --sweep N    time N seeded random shapes per kernel instead of the fixed
#                                     table (gemm_bench --sweep; its own acceptance; report
#                                     gemm-sweep.md); --sweep-seed S
#                        --skip-triton, --skip-bench, --skip-correctness
#                        --regen      build loom and regenerate even if build-gpu/gen exists
# Environment: OUT (results; default build-gpu/out), LOOM_BUILD_DIR (default build-gpu),
#              LOOM_GEN_DIR (default $LOOM_BUILD_DIR/gen),
#              JOBS (parallel build jobs; default 2 for --prepare, nproc on the device),
#              LOOM_RUN_BUDGET_S (seconds for the whole run, default 570 on the device: a device
#              command is cut at 600 s; each step's time limit shrinks to fit what is left).
#
# Every step runs even if an earlier one failed (when its inputs exist); the summary at the end
# lists each step's status and time; the exit status is 1 if any step failed.
set -u -o pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
build=${LOOM_BUILD_DIR:-$root/build-gpu}
gen=${LOOM_GEN_DIR:-$build/gen}
work=$build/device
out=${OUT:-$build/out}
entries=(gemm batched_gemm)

prepare=0 regen=0 ncu_shape="" skip_triton=0 skip_bench=0 skip_correctness=0 sweep=0 sweep_seed=20261125
args_line="bash bench/run.sh $*"
while [ $# -gt 0 ]; do
  case $1 in
    --prepare) prepare=1 ;;
    --regen) regen=1 ;;
    --ncu) ncu_shape=${2:?--ncu needs a shape}; shift ;;
    --sweep) sweep=${2:?--sweep needs a count}; shift ;;
    --sweep-seed) sweep_seed=${2:?--sweep-seed needs a seed}; shift ;;
    --skip-triton) skip_triton=1 ;;
    --skip-bench) skip_bench=1 ;;
    --skip-correctness) skip_correctness=1 ;;
    -h|--help) sed -n '3,/^set -u/{/^#/p}' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

export PATH=/usr/local/cuda/bin:$PATH
cuda_home=$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")
mkdir -p "$out" "$work/logs" "$work/lib" "$work/bin"
if [ $prepare -eq 1 ]; then budget=${LOOM_RUN_BUDGET_S:-7200}; else budget=${LOOM_RUN_BUDGET_S:-570}; fi
deadline=$(($(date +%s) + budget))
log=$out/run.log
: >"$log"

summary=()
any_failed=0

# step NAME TIMEOUT_S COMMAND...: runs COMMAND with a time limit, output to its own log and run.log.
step() {
  local name=$1 limit=$2
  shift 2
  local slog=$work/logs/${name//[^A-Za-z0-9_.-]/_}.log
  local t0 t1 rc status left
  # Keep inside the whole run's budget, so that the summary is always printed.
  left=$((deadline - $(date +%s) - 15))
  if [ $left -lt 5 ]; then
    note "$name" "FAIL (no time left)"
    any_failed=1
    return 1
  fi
  [ "$limit" -gt $left ] && limit=$left
  echo "=== $name: $*" >>"$log"
  printf '%s %-32s ' "$(date -u +%H:%M:%S)" "$name"
  t0=$(date +%s.%N)
  timeout --kill-after=10 "$limit" "$@" >"$slog" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  cat "$slog" >>"$log"
  case $rc in
    0) status=ok ;;
    124|137) status="FAIL (timeout ${limit}s)" ;;
    *) status="FAIL (exit $rc)" ;;
  esac
  [ $rc -ne 0 ] && any_failed=1
  local dt
  dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  echo "$status (${dt}s)"
  echo "=== $name: $status in ${dt}s" >>"$log"
  summary+=("$(printf '| %-32s | %-22s | %7ss |' "$name" "$status" "$dt")")
  return $rc
}

# note NAME STATUS: a summary line for a step that did not run (skip) or only informs (warn).
note() {
  summary+=("$(printf '| %-32s | %-22s | %8s |' "$1" "$2" "-")")
  echo "=== $1: $2" >>"$log"
  printf '%s %-32s %s\n' "$(date -u +%H:%M:%S)" "$1" "$2"
}

print_summary() {
  echo
  echo "| step                             | status                 | time     |"
  echo "|----------------------------------|------------------------|----------|"
  printf '%s\n' "${summary[@]}"
  echo
  if [ $any_failed -eq 0 ]; then echo "run.sh: all steps ok"; else echo "run.sh: some steps FAILED (see $log)"; fi
}

build_loom() {  # configure + build the compiler in build-gpu
  local jobs=$1
  step "configure loom" 300 cmake -S "$root" -B "$build" -G Ninja -DLOOM_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=Release || return 1
  step "build loom" 900 cmake --build "$build" --target loom -j "$jobs"
}

generate() {  # loom compile each example into $gen/<entry>, timing it
  mkdir -p "$gen"
  : >"$gen/loom-compile-times.txt"
  local e t0 t1
  for e in "${entries[@]}"; do
    rm -rf "${gen:?}/$e"
    t0=$(date +%s.%N)
    # --emit=torch: the same .cu and .h, and <entry>_torch.cpp for tests/gpu/torch_ops.sh
    if step "loom compile $e" 300 "$build/loom" compile "examples/$e/$e.loom" --emit=torch -o "$gen/$e"; then
      t1=$(date +%s.%N)
      awk -v e="$e" -v a="$t0" -v b="$t1" 'BEGIN { printf "%s: loom compile %.2f s\n", e, b - a }' \
        >>"$gen/loom-compile-times.txt"
      if [ ! -f "$gen/$e/$e.cu" ] || [ ! -f "$gen/$e/$e.h" ]; then
        note "loom output $e" "FAIL (no .cu/.h)"
        any_failed=1
      fi
    fi
  done
  # For tests/gpu/run.sh's end-to-end tests (not benchmarked here): dual_gemm, and gemm with a
  # column-major B (a mapping choice: tests/gpu/e2e/colmajor_b.sed).
  rm -rf "${gen:?}/dual_gemm"
  step "loom compile dual_gemm" 300 "$build/loom" compile examples/dual_gemm/dual_gemm.loom --emit=torch -o "$gen/dual_gemm"
  rm -rf "${gen:?}/gemm_colmajor_b"
  mkdir -p "$gen/gemm_colmajor_b"
  sed -f tests/gpu/e2e/colmajor_b.sed examples/gemm/gemm.loom >"$gen/gemm_colmajor_b/gemm_colmajor_b.loom"
  step "loom compile gemm (column-major B)" 300 "$build/loom" compile "$gen/gemm_colmajor_b/gemm_colmajor_b.loom" \
    -o "$gen/gemm_colmajor_b"
  # gemm with multicast(2) on its non-split mappings (tests/gpu/e2e/multicast.sed).
  rm -rf "${gen:?}/gemm_multicast"
  mkdir -p "$gen/gemm_multicast"
  sed -f tests/gpu/e2e/multicast.sed examples/gemm/gemm.loom >"$gen/gemm_multicast/gemm_multicast.loom"
  step "loom compile gemm (multicast)" 300 "$build/loom" compile "$gen/gemm_multicast/gemm_multicast.loom" -o "$gen/gemm_multicast"
  # gemm with alternate(2) on its default mapping, alone (tests/gpu/e2e/alternate.sed).
  rm -rf "${gen:?}/gemm_alternate"
  mkdir -p "$gen/gemm_alternate"
  sed -f tests/gpu/e2e/alternate.sed examples/gemm/gemm.loom | awk '/^mapping sm_90a when\(/ { exit } { print }' \
    >"$gen/gemm_alternate/gemm_alternate.loom"
  step "loom compile gemm (alternate)" 300 "$build/loom" compile "$gen/gemm_alternate/gemm_alternate.loom" -o "$gen/gemm_alternate"
  # gemm with kteams(2) on 64 x 128 tiles as its default mapping, alone (tests/gpu/e2e/kteams.sed).
  rm -rf "${gen:?}/gemm_kteams"
  mkdir -p "$gen/gemm_kteams"
  sed -f tests/gpu/e2e/kteams.sed examples/gemm/gemm.loom | awk '/^mapping sm_90a when\(/ { exit } { print }' \
    >"$gen/gemm_kteams/gemm_kteams.loom"
  step "loom compile gemm (kteams)" 300 "$build/loom" compile "$gen/gemm_kteams/gemm_kteams.loom" -o "$gen/gemm_kteams"
  # gemm with 128 x 224 tiles on its default mapping, alone (tests/gpu/e2e/widths.sed: padded B rows, a 64-byte tail slice).
  rm -rf "${gen:?}/gemm_width224"
  mkdir -p "$gen/gemm_width224"
  sed -f tests/gpu/e2e/widths.sed examples/gemm/gemm.loom | awk '/^mapping sm_90a when\(/ { exit } { print }' \
    >"$gen/gemm_width224/gemm_width224.loom"
  step "loom compile gemm (128 x 224 tiles)" 300 "$build/loom" compile "$gen/gemm_width224/gemm_width224.loom" -o "$gen/gemm_width224"
  # gemm as CUTLASS's ping-pong kernel: 128 x 128 tiles a warpgroup, alternate(2), multicast(2) (tests/gpu/e2e/pingpong.sed).
  rm -rf "${gen:?}/gemm_pingpong"
  mkdir -p "$gen/gemm_pingpong"
  sed -f tests/gpu/e2e/pingpong.sed examples/gemm/gemm.loom | awk '/^mapping sm_90a when\(/ { exit } { print }' \
    >"$gen/gemm_pingpong/gemm_pingpong.loom"
  step "loom compile gemm (pingpong)" 300 "$build/loom" compile "$gen/gemm_pingpong/gemm_pingpong.loom" -o "$gen/gemm_pingpong"
  # gemm_reduce on the ping-pong structure: 128 x 128 tiles a warpgroup, alternate(2) (tests/gpu/e2e/reduce_pingpong.sed).
  rm -rf "${gen:?}/gemm_reduce_pingpong"
  mkdir -p "$gen/gemm_reduce_pingpong"
  sed -f tests/gpu/e2e/reduce_pingpong.sed examples/gemm_reduce/gemm_reduce.loom >"$gen/gemm_reduce_pingpong/gemm_reduce_pingpong.loom"
  step "loom compile gemm_reduce (pingpong)" 300 "$build/loom" compile "$gen/gemm_reduce_pingpong/gemm_reduce_pingpong.loom" \
    -o "$gen/gemm_reduce_pingpong"
  # gemm_residual with C read from global memory by the threads (tests/gpu/e2e/residual_global.sed).
  rm -rf "${gen:?}/gemm_residual_global"
  mkdir -p "$gen/gemm_residual_global"
  sed -f tests/gpu/e2e/residual_global.sed examples/gemm_residual/gemm_residual.loom >"$gen/gemm_residual_global/gemm_residual.loom"
  step "loom compile gemm_residual (C from global)" 300 "$build/loom" compile "$gen/gemm_residual_global/gemm_residual.loom" \
    -o "$gen/gemm_residual_global"
  # Attention (tests/gpu/e2e/attention.sh, bench/attention.sh): the FA2 program, the hand-pipelined
  # FA3 and the causal one.
  local a
  for a in flash_attention_2 flash_attention_3 flash_attention_3_causal; do
    rm -rf "${gen:?}/$a"
    step "loom compile $a" 300 "$build/loom" compile "examples/$a/$a.loom" -o "$gen/$a"
  done
  # The FA2 program with f16 tensors (entry(E=f16)); named off bench/attention.sh's flash_attention_2*
  # glob, whose inputs are bf16.
  rm -rf "${gen:?}/fa2_f16"
  mkdir -p "$gen/fa2_f16"
  sed 's/entry(E=bf16)/entry(E=f16)/' examples/flash_attention_2/flash_attention_2.loom >"$gen/fa2_f16/fa2_f16.loom"
  step "loom compile flash_attention_2 (f16)" 300 "$build/loom" compile "$gen/fa2_f16/fa2_f16.loom" -o "$gen/fa2_f16"
}

# ------------------------------------------------------------------------------------------------
if [ $prepare -eq 1 ]; then
  echo "run.sh --prepare: loom build and code generation on $(hostname)"
  if build_loom "${JOBS:-2}"; then
    generate
    if [ -f "$gen/gemm/gemm.cu" ]; then
      rm -rf "$build/consumer"
      if step "configure consumer_cmake" 300 cmake -S examples/consumer_cmake -B "$build/consumer" \
          -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOOM_BINARY="$build/loom" \
          -DCMAKE_CUDA_COMPILER="$cuda_home/bin/nvcc" &&
         step "build consumer_cmake" 900 cmake --build "$build/consumer" -j "${JOBS:-2}"; then
        cp "$build/consumer/consumer" "$gen/consumer"
      fi
    else
      note "consumer_cmake" "skip (no gemm.cu)"
    fi
  fi
  print_summary
  echo "run.sh: carry ${gen#"$root"/} to the device and run: bash bench/run.sh"
  exit $any_failed
fi

# ------------------------------------------------------------------------------------------------
# Device half.
{
  echo "command: $args_line"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
  nvcc --version 2>&1 | tail -2
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' 2>&1
} >>"$log"
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
slug=$(echo "$gpu_name" | grep -oiE 'h100|h200|h800|h20|gh200|b200|a100' | head -1 | tr 'A-Z' 'a-z')
[ -n "$slug" ] || slug=$(echo "${gpu_name:-gpu}" | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9-')
report=$out/$(date -u +%Y-%m-%d)-$slug-gemm.md
echo "run.sh: $gpu_name; results in $out"

if [ $regen -eq 1 ] || { [ ! -f "$gen/gemm/gemm.cu" ] && [ ! -f "$gen/batched_gemm/batched_gemm.cu" ]; }; then
  if [ $regen -eq 0 ]; then
    echo "run.sh: no generated kernels in $gen (run 'bash bench/run.sh --prepare' on the development"
    echo "        machine and carry build-gpu/gen); trying to build loom here"
  fi
  build_loom "${JOBS:-$(nproc)}" && generate
else
  note "loom (pre-generated)" "ok (carried)"
  echo "--- loom compile times (development machine)" >>"$log"
  cat "$gen/loom-compile-times.txt" >>"$log" 2>/dev/null
fi

# nvcc: each generated kernel separately, timed, with the ptxas resource report; then a shared
# library that exports only loom_* (so two kernels' internal symbols can never clash).
nvcc_flags=(-std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fPIC -I"$root/runtime")
link_flags=(-cudart shared -L"$cuda_home/lib64/stubs" -lcuda -Xlinker -rpath,"$cuda_home/lib64")
printf '{ global: loom_*; local: *; };\n' >"$work/exports.map"
compile_report=$out/compile.txt
{
  echo "# nvcc compile of the generated kernels"
  echo
  echo "nvcc ${nvcc_flags[*]} -Xptxas -v -c <entry>.cu ($(nvcc --version | tail -1))"
  echo
  [ -f "$gen/loom-compile-times.txt" ] && cat "$gen/loom-compile-times.txt"
} >"$compile_report"
have_defs=() have_libs=() incs=()
for e in "${entries[@]}"; do
  if [ ! -f "$gen/$e/$e.cu" ]; then
    note "nvcc $e" "skip (no $e.cu)"
    any_failed=1
    continue
  fi
  t0=$(date +%s.%N)
  if step "nvcc $e" 600 nvcc "${nvcc_flags[@]}" -I"$gen/$e" -Xptxas -v -c "$gen/$e/$e.cu" -o "$work/$e.o"; then
    t1=$(date +%s.%N)
    {
      echo
      awk -v e="$e" -v a="$t0" -v b="$t1" 'BEGIN { printf "## %s: nvcc %.1f s\n\n", e, b - a }'
      grep -E 'ptxas|registers|spill|smem|stack' "$work/logs/nvcc_$e.log"
      echo
      if command -v cuobjdump >/dev/null; then cuobjdump -res-usage "$work/$e.o" 2>&1 | grep -vE '^$'; fi
    } >>"$compile_report"
    if step "link libloom_$e.so" 120 nvcc -shared -o "$work/lib/libloom_$e.so" "$work/$e.o" \
        -Xlinker --version-script="$work/exports.map" "${link_flags[@]}"; then
      have_defs+=("-DLOOM_HAVE_$(echo "$e" | tr a-z A-Z)")
      have_libs+=("-lloom_$e")
      incs+=("-I$gen/$e")
    fi
  else
    echo "## $e: nvcc FAILED (see run.log)" >>"$compile_report"
  fi
done

# Informational: do the two kernels link into one program as plain objects? (They must, for users
# who put two loom_add_library targets into one executable.)
if [ -f "$work/gemm.o" ] && [ -f "$work/batched_gemm.o" ]; then
  printf '#include "gemm.h"\n#include "batched_gemm.h"\nint main(void) { return !loom_gemm_info() || !loom_batched_gemm_info(); }\n' \
    >"$work/two_kernels.c"
  if ! step "link gemm.o + batched_gemm.o" 120 nvcc "$work/two_kernels.c" "$work/gemm.o" \
      "$work/batched_gemm.o" -I"$root/runtime" -I"$gen/gemm" -I"$gen/batched_gemm" -o "$work/bin/two_kernels" \
      "${link_flags[@]}"; then
    echo "(duplicate symbols between two generated kernels: give everything but loom_<entry> internal linkage)" >>"$log"
  fi
fi

harness_flags=("${nvcc_flags[@]}" -I"$root/bench" "${incs[@]}" "${have_defs[@]}")
harness_link=(-L"$work/lib" "${have_libs[@]}" -Xlinker -rpath,"$work/lib" "${link_flags[@]}")
if [ ${#have_libs[@]} -gt 0 ]; then
  step "build gemm_correctness" 300 nvcc "${harness_flags[@]}" tests/gpu/gemm_correctness.cu \
    -o "$work/bin/gemm_correctness" "${harness_link[@]}"
  step "build gemm_bench" 300 nvcc "${harness_flags[@]}" bench/gemm_bench.cu -o "$work/bin/gemm_bench" \
    "${harness_link[@]}" -lcublas
else
  note "build harness" "skip (no kernel)"
fi

if [ -x "$gen/consumer" ]; then
  step "consumer (consumer_cmake)" 120 "$gen/consumer"
  cp "$work/logs/consumer__consumer_cmake_.log" "$out/consumer.txt" 2>/dev/null
else
  note "consumer (consumer_cmake)" "skip (not built by --prepare)"
fi

if [ $skip_correctness -eq 0 ] && [ -x "$work/bin/gemm_correctness" ]; then
  step "gemm_correctness" 400 "$work/bin/gemm_correctness"
  cp "$work/logs/gemm_correctness.log" "$out/correctness.txt" 2>/dev/null
else
  note "gemm_correctness" "skip"
fi

if [ $skip_bench -eq 0 ] && [ -x "$work/bin/gemm_bench" ]; then
  failed_before=$any_failed
  if [ "$sweep" -gt 0 ]; then
    step "gemm_bench (vs cuBLAS)" 500 "$work/bin/gemm_bench" --out "$out/gemm-sweep.md" --sweep "$sweep" \
      --sweep-seed "$sweep_seed" --command "$args_line"
  else
    step "gemm_bench (vs cuBLAS)" 500 "$work/bin/gemm_bench" --out "$report" --command "$args_line"
  fi
  if [ $? -eq 4 ]; then  # everything measured and correct; only the speed target was missed
    summary[-1]=${summary[-1]/FAIL (exit 4)  /acceptance FAIL}
    any_failed=$failed_before
  fi
else
  note "gemm_bench (vs cuBLAS)" "skip"
fi

if [ $skip_triton -eq 0 ]; then
  step "triton_gemm.py" 500 env PYTHONUNBUFFERED=1 python3 bench/triton_gemm.py --out "$out/triton.md"
else
  note "triton_gemm.py" "skip"
fi

if [ -n "$ncu_shape" ] && [ -x "$work/bin/gemm_bench" ]; then
  step "ncu $ncu_shape" 500 ncu --profile-from-start off --set full -f \
    -o "$out/ncu-$ncu_shape" "$work/bin/gemm_bench" --profile "$ncu_shape"
fi

# The committed report: the bench table, then compile times and the Triton context.
if [ -f "$report" ]; then
  {
    echo
    echo "## Compile times"
    echo
    echo '```'
    grep -E '^## |loom compile|registers|spill' "$compile_report" | sed 's/^## //'
    echo '```'
    if [ -f "$out/correctness.txt" ]; then
      echo
      echo "## Correctness (tests/gpu/gemm_correctness.cu)"
      echo
      echo '```'
      tail -n 40 "$out/correctness.txt"
      echo '```'
    fi
    if [ -f "$out/triton.md" ]; then
      echo
      echo "## Context: Triton (bench/triton_gemm.py)"
      echo
      sed '1d' "$out/triton.md"
    fi
  } >>"$report"
fi

echo
[ -f "$out/correctness.txt" ] && tail -n 3 "$out/correctness.txt"
[ -f "$report" ] && sed -n '/^| group/,$p' "$report" | sed '/^## Compile times/,$d'
print_summary
exit $any_failed
