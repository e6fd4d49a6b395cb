#!/usr/bin/env bash
# tests/gpu/e2e/attention.sh GENDIR [WORK] [--d "64 128"] [--strict] [--skip-large] [--f16]: end-to-end test of
# one loom-generated attention kernel (entry `mha`: examples/flash_attention_2 or flash_attention_3).
# GENDIR holds mha.cu and mha.h (loom compile examples/flash_attention_2/flash_attention_2.loom -o
# build-gpu/gen/flash_attention_2 on the development machine). Builds
# tests/gpu/attention_correctness.cu against it, runs every shape for every head dimension the kernel
# supports (fresh random inputs, poisoned and guarded output, fp32 GPU reference, the error paths),
# then compute-sanitizer memcheck, racecheck and synccheck on 1x77x77xD and 2x200x300xD for each
# supported D (a shape the kernel refuses with LOOM_ERR_SHAPE, FA3's N % 128 != 0, is replaced by the
# same shape with N rounded up to 128, so that the sanitizers always see a launch), then runs with
# the Q, K, V bases 1 and 3 elements off 16-byte alignment (the async-copy variant).
# ATTENTION_E2E_BIN names a harness built beforehand from GENDIR with this script's nvcc command (on
# the development machine, saving the device the build).
# Exit status 0 only if everything passes.
set -u
GENDIR=${1:?usage: attention.sh GENDIR [WORK] [--d \"64 128\"] [--strict] [--skip-large]}
shift
WORK=/tmp
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then WORK=$1; shift; fi
DIMS="64 128"
EXTRA=()
F16=()
while [ $# -gt 0 ]; do
  case $1 in
    --d) DIMS=${2:?--d needs a list}; shift ;;
    --strict|--skip-large) EXTRA+=("$1") ;;
    --f16) F16=(--f16) ;;  # the artifact was compiled with entry(E=f16): every run uses f16 tensors
    *) echo "attention.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$ROOT" || exit 2
if [ ! -f "$GENDIR/mha.cu" ] || [ ! -f "$GENDIR/mha.h" ]; then
  echo "no $GENDIR/mha.cu or mha.h: run loom compile on the development machine first"
  exit 1
fi
name=$(basename "$GENDIR")
# A causal artifact (examples/flash_attention_3_causal) is checked against the causal reference.
CAUSAL=()
case $name in *causal*) CAUSAL=(--causal) ;; esac
CAUSAL+=("${F16[@]+"${F16[@]}"}")  # (the flags every run gets)
BIN=$WORK/attention_e2e_$name
if [ -n "${ATTENTION_E2E_BIN:-}" ]; then  # built beforehand (the same command, on the development machine)
  BIN=$ATTENTION_E2E_BIN
  echo "== $name: $BIN, built beforehand"
else
  t0=$(date +%s.%N)
  "$NVCC" -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -I"$GENDIR" \
    tests/gpu/attention_correctness.cu "$GENDIR/mha.cu" -lcuda -o "$BIN" || exit 1
  awk -v a="$t0" -v b="$(date +%s.%N)" -v n="$name" 'BEGIN { printf "== %s: built in %.1f s\n", n, b - a }'
fi
fail=0
log=$WORK/attention_e2e_$name.log
"$BIN" --d "$DIMS" "${EXTRA[@]+"${EXTRA[@]}"}" "${CAUSAL[@]+"${CAUSAL[@]}"}" 2>&1 | tee "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail=1
# The head dimensions the kernel accepted ("... D tested: 64 128)").
tested=$(sed -n 's/.*D tested:\([0-9 ]*\)).*/\1/p' "$log" | tail -n 1)
if [ -z "${tested// /}" ]; then
  echo "== no supported head dimension: sanitizers skipped"
  exit 1
fi
for D in $tested; do
  for base in 1x77x77 2x200x300; do
    shape=${base}x$D
    # A quick run without the sanitizer: does the kernel take this shape?
    if "$BIN" --only "$shape" "${CAUSAL[@]+"${CAUSAL[@]}"}" 2>&1 | grep -q '^attention_correctness: SKIP'; then
      IFS=x read -r bh m n <<<"$base"
      shape=${bh}x${m}x$(((n + 127) / 128 * 128))x$D
      echo "== $base x$D refused by the kernel (LOOM_ERR_SHAPE): sanitizers run $shape instead"
    fi
    for tool in memcheck racecheck synccheck; do
      echo "== compute-sanitizer --tool $tool, $shape"
      "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$BIN" --only "$shape" --seed 1 "${CAUSAL[@]+"${CAUSAL[@]}"}" || fail=1
    done
  done
done
# Q, K, V bases 1 and 3 elements past 16-byte alignment: the TMA cannot address them, the launcher
# runs the async-copy variant (docs/codegen.md); correct and memcheck-clean like the TMA kernel.
for D in $tested; do
  for off in 1 3; do
    echo "== offset $off elements, 2x333x520x$D"
    "$BIN" --only 2x333x520x$D --offset $off "${CAUSAL[@]+"${CAUSAL[@]}"}" || fail=1
  done
  echo "== compute-sanitizer --tool memcheck, offset 1, 1x77x200x$D"
  "$SAN" --tool memcheck --error-exitcode 99 --print-limit 20 "$BIN" --only 1x77x200x$D --offset 1 --seed 1 "${CAUSAL[@]+"${CAUSAL[@]}"}" || fail=1
done
[ $fail -eq 0 ] && echo "attention.sh $name: PASS" || echo "attention.sh $name: FAIL"
exit $fail
