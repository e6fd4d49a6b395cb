#!/usr/bin/env bash
# tests/gpu/run.sh: builds and runs every GPU test on a Hopper machine, in one call.
#
#   bash tests/gpu/run.sh            # from the repository root (or anywhere)
#
# Steps:
#   1. build every self-contained atom test, tests/gpu/*_test.cu, in parallel (other .cu files
#      there, such as end-to-end harnesses that need generated kernels, are not built here: add
#      them to E2E_TESTS below);
#   2. run each (output poisoned, inputs seeded, "PASS name" / "FAIL name: ..." and exit status);
#   3. check the SASS of some of them holds the expected Hopper instructions;
#   4. run the end-to-end kernel tests (E2E_TESTS below; the kernels they test are generated on the
#      development machine by `bash tests/gpu/prepare.sh` into build-gpu/gen, carried to the device);
#   5. run compute-sanitizer memcheck, racecheck and synccheck on the TMA / mbarrier / wgmma tests
#      (LOOM_TEST_QUICK=1).
# A step that fails does not stop the others. At the end a table (step, result, seconds) is
# printed, and the exit status is nonzero if any step failed.
#
# Logs: each step's log is kept; ${OUT:-/tmp}/gpu-logs/ receives summary.txt, failures.log (the
# full logs of failed steps) and logs.tar.gz (every log). Few files on purpose: the device tool
# returns at most 8 files from $OUT.
#
# Environment: NVCC (default /usr/local/cuda/bin/nvcc), LOOM_SEED (test inputs),
# LOOM_GPU_BUDGET_S (default 540: steps that would start later are skipped, so the run ends
# inside a 10-minute call), LOOM_GPU_TIMEOUT_S (per test run, default 120), LOOM_GPU_ONLY (an
# extended regular expression: only the steps whose names match run, the others are recorded
# "SKIP (LOOM_GPU_ONLY)"; e.g. LOOM_GPU_ONLY='^e2e\.(gemm|dual_gemm)' for two end-to-end tests).
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 2

NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
if [ ! -x "$NVCC" ]; then NVCC=$(command -v nvcc || true); fi
BUDGET_S=${LOOM_GPU_BUDGET_S:-540}
RUN_TIMEOUT_S=${LOOM_GPU_TIMEOUT_S:-120}
LOGDIR=${OUT:-/tmp}/gpu-logs
WORK=$(mktemp -d /tmp/loom-gpu.XXXXXX)
BIN=$WORK/bin
STEPLOGS=$WORK/logs
mkdir -p "$LOGDIR" "$BIN" "$STEPLOGS"
FLAGS=(-gencode=arch=compute_90a,code=sm_90a -std=c++17 -O2 -lineinfo -I runtime)
START=$(date +%s)

# The sanitizers run on these tests.
SANITIZED=(tma_load_test tma_store_test mbarrier_test wgmma_test async_copy_test cluster_test)

# ---------------------------------------------------------------------------------------------
# END-TO-END KERNEL TESTS: add one line per test, "name|command" (run from the repository root,
# where $BIN holds the built unit tests and $WORK is a scratch folder). The command's exit status
# decides PASS/FAIL; its output goes to the step's log. Example:
#   E2E_TESTS+=("gemm_4096|bash tests/gpu/e2e/gemm.sh $WORK")
E2E_TESTS=("gemm|bash tests/gpu/e2e/gemm.sh $WORK"  # loom's generated gemm + batched_gemm
           "dual_gemm|bash tests/gpu/e2e/dual_gemm.sh $WORK"
           # fused epilogues: bias + activation (four kernels, one per activation) and a residual
           "gemm_bias_act|bash tests/gpu/e2e/gemm_bias_act.sh $WORK"
           "gemm_residual|bash tests/gpu/e2e/gemm_residual.sh $WORK"
           # two matmuls into one accumulator (E = A·B + C·D; prints its cuBLAS comparison)
           "add_gemm|bash tests/gpu/e2e/add_gemm.sh $WORK"
           # a ReLU prologue on A in the wgmma's A fragments (C = ReLU(A)·B; prints its cuBLAS comparison)
           "relu_gemm|bash tests/gpu/e2e/relu_gemm.sh $WORK"
           "gemm_colmajor_b|bash tests/gpu/e2e/gemm_colmajor_b.sh $WORK"  # gemm with layout(B: col_major)
           # gemm with multicast(2): every mapping by index (odd row-tile counts: a block past the edge), sanitizers
           "gemm_multicast|bash tests/gpu/e2e/gemm_multicast.sh $WORK"
           # gemm with alternate(2): two teams taking the tiles in turn; every shape, sanitizers
           "gemm_alternate|bash tests/gpu/e2e/gemm_alternate.sh $WORK"
           # gemm as the ping-pong kernel: a warpgroup's 128 x 128 tile, alternate(2) with multicast(2); sanitizers
           "gemm_pingpong|bash tests/gpu/e2e/gemm_alternate.sh $WORK gemm_pingpong"
           # gemm with kteams(2): two teams sharing each 64 x 128 tile's K loop; every shape, sanitizers
           "gemm_kteams|bash tests/gpu/e2e/gemm_alternate.sh $WORK gemm_kteams"
           # gemm with 128 x 224 tiles (padded B rows, the epilogue's 64-byte tail slice); every shape, sanitizers
           "gemm_width224|bash tests/gpu/e2e/gemm_alternate.sh $WORK gemm_width224"
           # the CUDA generated from examples/tx (gemm, batched_gemm, gemm_bias_relu, add_gemm, mlp)
           "tx|bash tests/gpu/e2e/tx.sh $WORK"
           # the SIMT kernels of examples/tx (transpose, softmax, layernorm): checks, memcheck, bandwidth vs memcpy
           "tx_simt|LOOM_GEN_DIR=${LOOM_GEN_DIR:-build-gpu/gen}/tx bash tests/gpu/e2e/tx_simt.sh $WORK"
           # tensors the TMA cannot address (K = 700 packed, bases off 16 bytes): the async-copy variant
           "gemm_unaligned|bash tests/gpu/e2e/gemm_unaligned.sh $WORK"
           # GEMM + row sums, both mappings: Racc in registers (default) and in shared memory
           "gemm_reduce|bash tests/gpu/e2e/gemm_reduce.sh ${LOOM_GEN_DIR:-build-gpu/gen}/gemm_reduce $WORK"
           "gemm_reduce_shared|bash tests/gpu/e2e/gemm_reduce.sh ${LOOM_GEN_DIR:-build-gpu/gen}/gemm_reduce_shared $WORK"
           # one warpgroup a 128 x 128 tile (row sums over two row blocks), alternate(2) (e2e/reduce_pingpong.sed)
           "gemm_reduce_pingpong|bash tests/gpu/e2e/gemm_reduce.sh ${LOOM_GEN_DIR:-build-gpu/gen}/gemm_reduce_pingpong $WORK"
           # torch.ops.loom.{gemm,batched_gemm,dual_gemm}: build, agreement, out=, streams, errors, torch.compile
           "torch_ops|bash tests/gpu/torch_ops.sh $WORK"
           # attention (entry mha), one generated directory each; D in {64, 128} where compiled
           # (flash_attention_2 also 256: its when(D > 128) mapping)
           "flash_attention_2|bash tests/gpu/e2e/attention.sh ${LOOM_GEN_DIR:-build-gpu/gen}/flash_attention_2 $WORK --d \"64 128 256\""
           "flash_attention_2_f16|bash tests/gpu/e2e/attention.sh ${LOOM_GEN_DIR:-build-gpu/gen}/fa2_f16 $WORK --d \"64 128 256\" --f16"
           "flash_attention_3_causal|bash tests/gpu/e2e/attention.sh ${LOOM_GEN_DIR:-build-gpu/gen}/flash_attention_3_causal $WORK"
           "flash_attention_3|bash tests/gpu/e2e/attention.sh ${LOOM_GEN_DIR:-build-gpu/gen}/flash_attention_3 $WORK")
# ---------------------------------------------------------------------------------------------

NAMES=()
RESULTS=()
SECONDS_TAKEN=()
FAILED=0

record() {  # name result seconds
  NAMES+=("$1")
  RESULTS+=("$2")
  SECONDS_TAKEN+=("$3")
  case "$2" in PASS | SKIP*) ;; *) FAILED=1 ;; esac
  printf '%-44s %s (%ss)\n' "$1" "$2" "$3"
}

over_budget() { [ $(($(date +%s) - START)) -ge "$BUDGET_S" ]; }

# run_step NAME TIMEOUT COMMAND...: runs the command with a timeout, logs to $STEPLOGS/NAME.log.
run_step() {
  local name=$1 limit=$2
  shift 2
  local log=$STEPLOGS/$name.log
  if [ -n "${LOOM_GPU_ONLY:-}" ] && ! [[ $name =~ $LOOM_GPU_ONLY ]]; then
    record "$name" "SKIP (LOOM_GPU_ONLY)" 0
    return
  fi
  if over_budget; then
    record "$name" "SKIP (time budget)" 0
    return
  fi
  local t0 t1 rc
  t0=$(date +%s)
  timeout --kill-after=10 "$limit" "$@" >"$log" 2>&1
  rc=$?
  t1=$(date +%s)
  if [ $rc -eq 0 ]; then
    record "$name" PASS $((t1 - t0))
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    record "$name" "FAIL (timeout ${limit}s)" $((t1 - t0))
  else
    record "$name" "FAIL (exit $rc)" $((t1 - t0))
  fi
}

echo "== loom GPU tests: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
(nvidia-smi -L 2>&1 || echo "nvidia-smi unavailable") | sed 's/^/   /'
echo "   nvcc: $("$NVCC" --version 2>&1 | tail -n 2 | head -n 1)"
echo "   seed: ${LOOM_SEED:-per-test (printed by each test)}"

# ---- 1. build, all in parallel --------------------------------------------------------------
TESTS=()
for src in tests/gpu/*_test.cu; do
  t=$(basename "$src" .cu)
  # with LOOM_GPU_ONLY, only the atom tests some step of which it names are built
  if [ -n "${LOOM_GPU_ONLY:-}" ] && ! [[ "run.$t" =~ $LOOM_GPU_ONLY || "memcheck.$t" =~ $LOOM_GPU_ONLY ||
                                        "racecheck.$t" =~ $LOOM_GPU_ONLY || "synccheck.$t" =~ $LOOM_GPU_ONLY ]]; then
    continue
  fi
  TESTS+=("$t")
done
echo "== build (${#TESTS[@]} tests, parallel)"
declare -A BUILD_PID BUILD_T0
for t in "${TESTS[@]}"; do
  BUILD_T0[$t]=$(date +%s)
  "$NVCC" "${FLAGS[@]}" -o "$BIN/$t" "tests/gpu/$t.cu" >"$STEPLOGS/build.$t.log" 2>&1 &
  BUILD_PID[$t]=$!
done
BUILT=()
for t in "${TESTS[@]}"; do
  wait "${BUILD_PID[$t]}"
  rc=$?
  secs=$(($(date +%s) - ${BUILD_T0[$t]}))
  if [ $rc -eq 0 ]; then
    record "build.$t" PASS "$secs"
    BUILT+=("$t")
  else
    record "build.$t" "FAIL (exit $rc)" "$secs"
  fi
done

# ---- 2. run each test ------------------------------------------------------------------------
echo "== run"
for t in "${BUILT[@]}"; do
  run_step "run.$t" "$RUN_TIMEOUT_S" "$BIN/$t"
done

# ---- 3. SASS checks: the atoms became the Hopper instructions -------------------------------
echo "== sass"
CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
if [ -x "$CUOBJDUMP" ]; then
  for pair in "setmaxnreg_test|USETMAXREG" "wgmma_test|HGMMA" "tma_load_test|UTMALDG" \
              "tma_store_test|UTMASTG" "stmatrix_test|STSM"; do
    t=${pair%%|*}
    op=${pair#*|}
    [ -x "$BIN/$t" ] || continue
    # Passes when the disassembly holds at least one $op instruction.
    run_step "sass.$t.$op" 60 bash -c \
      "n=\$('$CUOBJDUMP' -sass '$BIN/$t' | grep -c '$op'); echo \"$op: \$n\"; [ \"\$n\" -gt 0 ]"
  done
else
  record "sass" "SKIP (no cuobjdump)" 0
fi

# ---- 4. end-to-end kernel tests (E2E_TESTS above) -------------------------------------------
echo "== e2e (${#E2E_TESTS[@]} tests)"
export BIN WORK
for entry in "${E2E_TESTS[@]+"${E2E_TESTS[@]}"}"; do
  run_step "e2e.${entry%%|*}" 300 bash -c "${entry#*|}"
done

# ---- 5. compute-sanitizer --------------------------------------------------------------------
echo "== compute-sanitizer (LOOM_TEST_QUICK=1)"
SANITIZER=$(command -v compute-sanitizer || true)
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer \
         /opt/nvidia/*/compute-sanitizer/compute-sanitizer; do
  if [ -z "$SANITIZER" ] && [ -x "$c" ]; then SANITIZER=$c; fi
done
if [ -z "$SANITIZER" ]; then
  record "sanitizer" "SKIP (compute-sanitizer not found)" 0
else
  for tool in memcheck racecheck synccheck; do
    for t in "${SANITIZED[@]}"; do
      if [ -x "$BIN/$t" ]; then
        run_step "$tool.$t" "$RUN_TIMEOUT_S" env LOOM_TEST_QUICK=1 \
          "$SANITIZER" --tool "$tool" --error-exitcode 99 --print-limit 20 "$BIN/$t"
      fi
    done
  done
fi

# ---- summary ---------------------------------------------------------------------------------
{
  echo
  echo "== summary ($(($(date +%s) - START))s total)"
  printf '%-44s %-34s %8s\n' STEP RESULT SECONDS
  for i in "${!NAMES[@]}"; do
    printf '%-44s %-34s %8s\n' "${NAMES[$i]}" "${RESULTS[$i]}" "${SECONDS_TAKEN[$i]}"
  done
} >"$WORK/summary.txt"

: >"$LOGDIR/failures.log"
for i in "${!NAMES[@]}"; do
  case "${RESULTS[$i]}" in PASS | SKIP*) continue ;; esac
  log=$STEPLOGS/${NAMES[$i]}.log
  {
    echo "######## ${NAMES[$i]}: ${RESULTS[$i]}"
    cat "$log" 2>/dev/null || echo "(no log)"
    echo
  } >>"$LOGDIR/failures.log"
  # The tail of each failure on stdout too (the device tool returns the end of the output).
  echo "---- ${NAMES[$i]}: ${RESULTS[$i]} (last lines of its log)"
  tail -n 15 "$log" 2>/dev/null
done
cp "$WORK/summary.txt" "$LOGDIR/summary.txt"
tar -czf "$LOGDIR/logs.tar.gz" -C "$WORK" logs 2>/dev/null
cat "$WORK/summary.txt"
echo "logs: $LOGDIR/{summary.txt,failures.log,logs.tar.gz}"
rm -rf "$WORK"
if [ $FAILED -ne 0 ]; then
  echo "GPU TESTS FAILED"
  exit 1
fi
echo "GPU TESTS PASSED"
exit 0
