#!/usr/bin/env bash
# tests/gpu/e2e/gemm_bias_act.sh WORK: end-to-end test of loom's generated gemm_bias_act
# (examples/gemm_bias_act, C = act(A·B + bias)) with each activation: identity, relu, gelu, silu,
# gelu_fast.
# The activation is the variant the mapping's act_thread instance runs, so each is its own kernel:
# ${LOOM_GEN_DIR:-build-gpu/gen}/gemm_bias_act_<act>/, made on the development machine with
#   for a in identity relu gelu silu gelu_fast; do bash tests/gpu/e2e/gemm_bias_act.sh --gen $a build-gpu/gen; done
# (or, when $LOOM names a loom binary here, generated into WORK by this script). Builds
# tests/gpu/gemm_bias_act_correctness.cu against each (-DLOOM_ACT), runs every shape, then
# compute-sanitizer memcheck, racecheck and synccheck on every mapping by index at 129x257x65 (and
# memcheck on the launcher's pick at 128x128x64).
# GEMM_BIAS_ACT_E2E_BINS names a folder of harnesses built beforehand with this script's nvcc command
# (on the development machine, one gemm_bias_act_<act> per activation): they are run instead of built.
# Exit status 0 only if everything passes.
set -u
# The example with act_thread running activation $1's variant, written to $2/gemm_bias_act.loom.
variant_of() {
  case $1 in identity) echo bias_thread ;; relu) echo bias_relu_thread ;; gelu) echo bias_gelu_thread ;;
    silu) echo bias_silu_thread ;; gelu_fast) echo bias_gelu_fast_thread ;; *) return 1 ;; esac
}
if [ "${1:-}" = "--gen" ]; then  # --gen ACT DIR: generate gemm_bias_act_ACT under DIR (needs ${LOOM:-build/loom})
  v=$(variant_of "$2") || { echo "unknown activation $2"; exit 1; }
  mkdir -p "$3/gemm_bias_act_$2"
  sed "s/act_thread = bias_gelu_thread on/act_thread = $v on/" examples/gemm_bias_act/gemm_bias_act.loom \
    >"$3/gemm_bias_act_$2/gemm_bias_act.loom"
  exec "${LOOM:-build/loom}" compile "$3/gemm_bias_act_$2/gemm_bias_act.loom" -o "$3/gemm_bias_act_$2"
fi
WORK=${1:-/tmp}
GEN=${LOOM_GEN_DIR:-build-gpu/gen}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
fail=0
act_id=0
for act in identity relu gelu silu gelu_fast; do  # in LOOM_ACT order
  dir="$GEN/gemm_bias_act_$act"
  if [ ! -f "$dir/gemm_bias_act.cu" ] && [ -n "${LOOM:-}" ]; then
    bash "$0" --gen "$act" "$WORK" >/dev/null || fail=1
    dir="$WORK/gemm_bias_act_$act"
  fi
  if [ ! -f "$dir/gemm_bias_act.cu" ]; then echo "no $dir/gemm_bias_act.cu"; fail=1; act_id=$((act_id + 1)); continue; fi
  echo "== gemm_bias_act, $act"
  if [ -n "${GEMM_BIAS_ACT_E2E_BINS:-}" ]; then
    cp "$GEMM_BIAS_ACT_E2E_BINS/gemm_bias_act_$act" "$WORK/gemm_bias_act_$act"
  fi
  if [ -n "${GEMM_BIAS_ACT_E2E_BINS:-}" ] || "$NVCC" -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -DLOOM_ACT=$act_id -Iruntime -Itests/gpu \
      -I"$dir" tests/gpu/gemm_bias_act_correctness.cu "$dir/gemm_bias_act.cu" -lcuda -o "$WORK/gemm_bias_act_$act"; then
    "$WORK/gemm_bias_act_$act" || fail=1
    for tool in memcheck racecheck synccheck; do  # every mapping forced by index, not only the launcher's pick
      echo "== compute-sanitizer --tool $tool, $act, every mapping at 129x257x65"
      "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$WORK/gemm_bias_act_$act" --by-index 129x257x65 || fail=1
    done
    echo "== compute-sanitizer --tool memcheck, $act, 128x128x64"
    "$SAN" --tool memcheck --error-exitcode 99 --print-limit 20 "$WORK/gemm_bias_act_$act" --only 128x128x64 || fail=1
  else
    fail=1
  fi
  act_id=$((act_id + 1))
done
exit $fail
