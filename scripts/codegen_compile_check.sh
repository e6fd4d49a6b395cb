#!/usr/bin/env bash
# Compile-only check of the CUDA that loom generates, for CI (no GPU needed). Run by CTest as
# `codegen_nvcc_compile`. For examples/gemm (also with multicast(2), with alternate(2), with kteams(2) and as the ping-pong kernel), batched_gemm, dual_gemm, gemm_bias_act, gemm_residual, add_gemm, gemm_reduce and relu_gemm (and
# flash_attention_2, flash_attention_3 and flash_attention_3_causal in step 2c, whose SASS is also
# scanned for writes to an in-flight wgmma's A registers (scripts/sass_hazards.py); the fused epilogues' GPU harnesses in step 2d; two lowered tensor-expression
# kernels, tests/golden/tx/, in step 2e) it
#   1. runs `loom compile FILE -o DIR` (the artifact: DIR/<entry>.cu and DIR/<entry>.h),
#   2. compiles each .cu with nvcc for sm_90a, exactly as docs/artifact.md tells users to
#      (-std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I runtime -I DIR -c); the output must
#      be free of warnings and of ptxas advisories (C75xx: setmaxnreg ignored, wgmma serialized),
#   3. compiles a small C99 program that includes both headers with the host C compiler, links it
#      with both objects (two generated kernels in one program: everything but the loom_* ABI
#      functions has internal linkage) and runs it: it calls only loom_*_info and the launchers'
#      argument checks, which return before touching the GPU, so no device is needed,
#   4. runs `loom compile --emit=ptx` and `--emit=cubin` (the CLI calls nvcc itself, from PATH).
# Exit 0 when all pass, 1 otherwise, 77 (CTest: skipped) when nvcc is absent.
# Usage: codegen_compile_check.sh [LOOM]   (default build/loom)
# Environment: NVCC (default /usr/local/cuda/bin/nvcc), CC (default cc), KEEP=1 keeps the work dir.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
LOOM=${1:-build/loom}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
CC_BIN=${CC:-cc}

if [ ! -x "$NVCC" ]; then
  echo "codegen_compile_check: SKIPPED: nvcc not found at $NVCC (set NVCC, or install the CUDA toolkit"
  echo "codegen_compile_check: under /usr/local/cuda; scripts/install-deps.sh checks for it)"
  exit 77
fi
if [ ! -x "$LOOM" ]; then
  echo "codegen_compile_check: FAILED: no loom binary at $LOOM (build first, or pass its path)"
  exit 1
fi

WORK=$(mktemp -d /tmp/loom-codegen-compile.XXXXXX)
if [ "${KEEP:-0}" = 1 ]; then echo "codegen_compile_check: work dir $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
CUDA_INCLUDE=$(cd "$(dirname "$NVCC")/../include" 2>/dev/null && pwd)
# The CLI's --emit=ptx|cubin run `nvcc` from PATH: use the same one.
export PATH="$(dirname "$NVCC"):$PATH"
STATUS=0
EXAMPLES=(gemm batched_gemm dual_gemm gemm_bias_act gemm_residual add_gemm gemm_reduce relu_gemm)
NVCC_FLAGS=(-std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I "$ROOT/runtime")

fail() {
  echo "FAIL $1"
  [ -n "${2:-}" ] && [ -f "$2" ] && head -n 40 "$2"
  STATUS=1
}

# 1. Generate.
for ex in "${EXAMPLES[@]}"; do
  if "$LOOM" compile "examples/$ex/$ex.loom" -o "$WORK/$ex" >"$WORK/$ex.gen.log" 2>&1 &&
      [ -f "$WORK/$ex/$ex.cu" ] && [ -f "$WORK/$ex/$ex.h" ]; then
    echo "ok   loom compile examples/$ex/$ex.loom -o DIR"
  else
    fail "loom compile examples/$ex/$ex.loom -o DIR" "$WORK/$ex.gen.log"
  fi
done
[ $STATUS -eq 0 ] || { echo "codegen_compile_check: FAILED"; exit 1; }

# 2. Compile each kernel (in parallel).
compile_one() {
  local ex=$1 t0=$SECONDS
  if "$NVCC" "${NVCC_FLAGS[@]}" -I "$WORK/$ex" -c "$WORK/$ex/$ex.cu" -o "$WORK/$ex/$ex.o" >"$WORK/$ex.nvcc.log" 2>&1; then
    if grep -Eq "warning|C75[0-9][0-9]" "$WORK/$ex.nvcc.log"; then
      echo "FAIL nvcc $ex.cu: compiles, with warnings or ptxas advisories ($((SECONDS - t0))s):"
      head -n 40 "$WORK/$ex.nvcc.log"
      echo FAIL >"$WORK/$ex.failed"
    else
      echo "ok   nvcc -c $ex.cu (sm_90a, $((SECONDS - t0))s)"
    fi
  else
    echo "FAIL nvcc -c $ex.cu ($((SECONDS - t0))s):"
    head -n 40 "$WORK/$ex.nvcc.log"
    echo FAIL >"$WORK/$ex.failed"
  fi
}
pids=()
for ex in "${EXAMPLES[@]}"; do
  compile_one "$ex" >"$WORK/$ex.report" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
for ex in "${EXAMPLES[@]}"; do
  cat "$WORK/$ex.report"
  [ -f "$WORK/$ex.failed" ] && STATUS=1
done

# 2b. examples/gemm's default mapping (or EX=<example>'s) edited by a sed script of tests/gpu/e2e/ (a
# mapping choice the examples' candidates do not make; the default only, fewer kernels to compile):
# loom compile, a line the variant's code must have (MARKER, if given), nvcc -c.
# [EX=example] variant NAME SED WHAT [MARKER].
variant() {
  local name=$1 sed_file=$2 what=$3 marker=${4:-} dir="$WORK/$1" ex=${EX:-gemm}
  mkdir -p "$dir"
  sed -f "$sed_file" "examples/$ex/$ex.loom" | awk '/^mapping sm_90a when\(/ { exit } { print }' >"$dir/$name.loom"
  if "$LOOM" compile "$dir/$name.loom" -o "$dir" >"$dir.log" 2>&1 && { [ -z "$marker" ] || grep -q "$marker" "$dir/$ex.cu"; } &&
      "$NVCC" "${NVCC_FLAGS[@]}" -I "$dir" -c "$dir/$ex.cu" -o "$dir/$ex.o" >>"$dir.log" 2>&1 &&
      ! grep -Eq "warning|C75[0-9][0-9]" "$dir.log"; then
    echo "ok   $ex with $what: loom compile + nvcc -c (sm_90a)"
  else
    fail "$ex with $what: loom compile + nvcc -c" "$dir.log"
  fi
}
# A column-major B (tests/gpu/e2e/colmajor_b.sed): K-major B tiles.
variant gemm_colmajor_b tests/gpu/e2e/colmajor_b.sed "layout(B: col_major)"
# multicast(2): a cluster launch, multicast TMA loads, cluster-wide ring releases.
variant gemm_multicast tests/gpu/e2e/multicast.sed "multicast(2)" "tma_load_2d_multicast"
# alternate(2): two teams of one compute warpgroup taking the block's 64 x 256 tiles in turn (the
# ring skipped by trip counts, the turn barriers).
variant gemm_alternate tests/gpu/e2e/alternate.sed "alternate(2)" "alternate: this team's turn on the ring"
# kteams(2): two teams of one compute warpgroup sharing each 64 x 128 tile's K loop (the partial sums'
# hand-over through shared memory).
variant gemm_kteams tests/gpu/e2e/kteams.sed "kteams(2)" "kteams(2): this team's iterations"
# The ping-pong kernel: one warpgroup a 128 x 128 tile (two wgmma row blocks), alternate(2) and multicast(2).
variant gemm_pingpong tests/gpu/e2e/pingpong.sed "128-row warpgroup tiles, alternate(2), multicast(2)" "rows 64 .. 127 of the warpgroup's tile"
# A block width that is not whole swizzle slices (tests/gpu/e2e/widths.sed): 128 x 224 tiles, B's rows
# padded to four 64-column slices, the staged epilogue's 64-byte tail slice.
variant gemm_width224 tests/gpu/e2e/widths.sed "128 x 224 tiles" "the last 32 columns"
# gemm_reduce on the same structure: row sums over a warpgroup's two row blocks.
EX=gemm_reduce variant gemm_reduce_pingpong tests/gpu/e2e/reduce_pingpong.sed "128-row warpgroup tiles, alternate(2)" \
  "row half r & 1 of row block r >> 1"

# 2c. Attention: examples/flash_attention_2 (entry `mha`; two kernels, D = 128 and D <= 64).
if "$LOOM" compile examples/flash_attention_2/flash_attention_2.loom -o "$WORK/fa2" >"$WORK/fa2.log" 2>&1 &&
    "$NVCC" "${NVCC_FLAGS[@]}" -I "$WORK/fa2" -c "$WORK/fa2/mha.cu" -o "$WORK/fa2/mha.o" >>"$WORK/fa2.log" 2>&1 &&
    ! grep -Eq "warning|C75[0-9][0-9]" "$WORK/fa2.log"; then
  echo "ok   flash_attention_2 (mha): loom compile + nvcc -c (sm_90a)"
else
  fail "flash_attention_2 (mha): loom compile + nvcc -c" "$WORK/fa2.log"
fi
# The hand-pipelined FlashAttention-3 (its scores carried across iterations, clipped views). Its
# D = 128 kernels (mapping0) hold S, its copy Sc, the accumulator and P at once, and ptxas
# serializes their wgmmas for lack of registers (advisory C7512): a known performance limit
# (bench/results/2026-11-27-h100-attention-fa3.md), allowed for those kernels only; any other
# warning or advisory fails.
if "$LOOM" compile examples/flash_attention_3/flash_attention_3.loom -o "$WORK/fa3" >"$WORK/fa3.log" 2>&1 &&
    "$NVCC" "${NVCC_FLAGS[@]}" -I "$WORK/fa3" -c "$WORK/fa3/mha.cu" -o "$WORK/fa3/mha.o" >>"$WORK/fa3.log" 2>&1 &&
    ! grep -E "warning|C75[0-9][0-9]" "$WORK/fa3.log" | grep -Evq "C7512.*_mha_cu_loom_mha8mapping0"; then
  echo "ok   flash_attention_3 (mha): loom compile + nvcc -c (sm_90a)$(grep -q C7512 "$WORK/fa3.log" && echo "; ptxas C7512 (wgmma serialized) on its D = 128 kernels, known")"
else
  fail "flash_attention_3 (mha): loom compile + nvcc -c" "$WORK/fa3.log"
fi
# The causal one: its launcher also chooses the tile order (fold_tiles).
if "$LOOM" compile examples/flash_attention_3_causal/flash_attention_3_causal.loom -o "$WORK/fa3c" >"$WORK/fa3c.log" 2>&1 &&
    "$NVCC" "${NVCC_FLAGS[@]}" -I "$WORK/fa3c" -c "$WORK/fa3c/mha.cu" -o "$WORK/fa3c/mha.o" >>"$WORK/fa3c.log" 2>&1 &&
    ! grep -Eq "warning|C75[0-9][0-9]" "$WORK/fa3c.log"; then
  echo "ok   flash_attention_3_causal (mha): loom compile + nvcc -c (sm_90a)"
else
  fail "flash_attention_3_causal (mha): loom compile + nvcc -c" "$WORK/fa3c.log"
fi
# pingpong(double_buffer) (docs/codegen.md, "Double-buffered turns"): flash_attention_2's turns with
# P's A fragments in two copies (no advisory), and the hand-pipelined flash_attention_3 with turns,
# which plain `pingpong` refuses (C7512 on every kernel: it is out of registers, known). Their SASS
# is scanned below with the others.
sed 's/warpspecialize pipeline(2) pingpong /warpspecialize pipeline(2) pingpong(double_buffer) /' \
  examples/flash_attention_2/flash_attention_2.loom >"$WORK/fa2db.loom"
sed 's/warpspecialize pipeline(2) smem(227KB);/warpspecialize pipeline(2) pingpong(double_buffer) smem(227KB);/' \
  examples/flash_attention_3/flash_attention_3.loom >"$WORK/fa3db.loom"
for k in fa2db fa3db; do
  allowed='^$'
  [ $k = fa3db ] && allowed='C7512'
  if [ "$(grep -c 'pingpong(double_buffer)' "$WORK/$k.loom")" -ge 2 ] &&
      "$LOOM" compile "$WORK/$k.loom" -o "$WORK/$k" >"$WORK/$k.log" 2>&1 &&
      grep -q "v_A_1_odd" "$WORK/$k/mha.cu" &&
      "$NVCC" "${NVCC_FLAGS[@]}" -I "$WORK/$k" -c "$WORK/$k/mha.cu" -o "$WORK/$k/mha.o" >>"$WORK/$k.log" 2>&1 &&
      ! grep -E "warning|C75[0-9][0-9]" "$WORK/$k.log" | grep -Evq "$allowed"; then
    echo "ok   $k (pingpong(double_buffer)): loom compile + nvcc -c (sm_90a)$([ $k = fa3db ] && echo "; ptxas C7512 (wgmma serialized), known")"
  else
    fail "$k (pingpong(double_buffer)): loom compile + nvcc -c" "$WORK/$k.log"
  fi
done

# 2c, the SASS. The attention kernels': no write to the A registers of a wgmma still in flight
# (scripts/sass_hazards.py: ptxas has given the registers of a deferred P V, issued under a branch,
# to the softmax, a miscompile no sanitizer sees; bench/results/2026-12-05-h200-sched.md). Needs
# cuobjdump and nvdisasm (scripts/install-deps.sh puts them in the Python env: LOOM_PYENV).
PYENV=${LOOM_PYENV:-$HOME/.cache/loom/pyenv}
SASS_BIN=$(dirname "$(ls "$PYENV"/lib/python3*/site-packages/nvidia/cu13/bin/cuobjdump 2>/dev/null | head -1)" 2>/dev/null)
if [ -x "$SASS_BIN/cuobjdump" ] && [ -x "$SASS_BIN/nvdisasm" ]; then
  for k in fa2 fa3 fa3c fa2db fa3db; do
    [ -f "$WORK/$k/mha.o" ] || continue
    if PATH="$SASS_BIN:$PATH" "$SASS_BIN/cuobjdump" -sass "$WORK/$k/mha.o" >"$WORK/$k.sass" 2>"$WORK/$k.sass.log" &&
        python3 scripts/sass_hazards.py "$WORK/$k.sass" >"$WORK/$k.hazards" 2>&1; then
      echo "ok   $k: SASS, no write to an in-flight wgmma's A registers"
    else
      cat "$WORK/$k.sass.log" >>"$WORK/$k.hazards"
      fail "$k: SASS writes to an in-flight wgmma's A registers (scripts/sass_hazards.py)" "$WORK/$k.hazards"
    fi
  done
else
  fail "SASS check: no cuobjdump / nvdisasm under $PYENV (run scripts/install-deps.sh)"
fi

# 2d. The end-to-end harnesses of the fused epilogues (tests/gpu/e2e/gemm_bias_act.sh,
# gemm_residual.sh, gemm_reduce.sh run them on a GPU) compile and link against the generated
# kernels: the example's GELU kernel (LOOM_ACT=2), gemm_residual, and gemm_reduce with either
# mapping (examples/gemm_reduce: tiles, row sums in registers added across blocks; examples/gemm_reduce_shared: panels, in shared memory).
# Each harness is compiled once and linked with the kernel's object from step 2 (not compiled again).
harness() {  # harness.cu example object [extra flags...]: nvcc -c the harness, link it with the object
  local cu=$1 ex=$2 obj=$3
  shift 3
  "$NVCC" "${NVCC_FLAGS[@]}" "$@" -I tests/gpu -I "$WORK/$ex" -c "$cu" -o "$WORK/$ex.harness.o" &&
    "$NVCC" -gencode=arch=compute_90a,code=sm_90a "$WORK/$ex.harness.o" "$obj" -lcuda -lcublas -o "$WORK/${ex}_e2e"
}
if harness tests/gpu/gemm_bias_act_correctness.cu gemm_bias_act "$WORK/gemm_bias_act/gemm_bias_act.o" -DLOOM_ACT=2 >"$WORK/e2e_epi.log" 2>&1 &&
    harness tests/gpu/gemm_residual_correctness.cu gemm_residual "$WORK/gemm_residual/gemm_residual.o" >>"$WORK/e2e_epi.log" 2>&1 &&
    harness tests/gpu/add_gemm_correctness.cu add_gemm "$WORK/add_gemm/add_gemm.o" >>"$WORK/e2e_epi.log" 2>&1 &&
    harness tests/gpu/gemm_reduce_correctness.cu gemm_reduce "$WORK/gemm_reduce/gemm_reduce.o" >>"$WORK/e2e_epi.log" 2>&1 &&
    "$LOOM" compile examples/gemm_reduce_shared/gemm_reduce_shared.loom -o "$WORK/gemm_reduce_shared" >>"$WORK/e2e_epi.log" 2>&1 &&
    "$NVCC" "${NVCC_FLAGS[@]}" -I "$WORK/gemm_reduce_shared" -c "$WORK/gemm_reduce_shared/gemm_reduce.cu" \
      -o "$WORK/gemm_reduce_shared/gemm_reduce.o" >>"$WORK/e2e_epi.log" 2>&1 &&
    harness tests/gpu/gemm_reduce_correctness.cu gemm_reduce_shared "$WORK/gemm_reduce_shared/gemm_reduce.o" >>"$WORK/e2e_epi.log" 2>&1 &&
    ! grep -Eq "warning|C75[0-9][0-9]" "$WORK/e2e_epi.log"; then
  echo "ok   tests/gpu/gemm_bias_act_correctness.cu, gemm_residual_correctness.cu, add_gemm_correctness.cu, gemm_reduce_correctness.cu: nvcc (sm_90a) with the generated kernels"
else
  fail "tests/gpu/gemm_bias_act_correctness.cu, gemm_residual_correctness.cu, add_gemm_correctness.cu, gemm_reduce_correctness.cu: nvcc with the generated kernels" "$WORK/e2e_epi.log"
fi

# 2e. Programs of the tensor-expression lowering (src/tx/lower.h; their goldens are
# tests/golden/tx/*.loom): a bias + GELU epilogue and a residual staged in shared memory (read from
# GLOBAL in its split mappings), the plain and the batched (column-major B) GEMM; each has three
# split-K when(fastest) candidates (splitk(2), splitk(4): thread-block clusters).
tx_one() {
  local name=$1
  if "$LOOM" compile "tests/golden/tx/$name.loom" -o "$WORK/tx_$name" >"$WORK/tx_$name.log" 2>&1 &&
      "$NVCC" "${NVCC_FLAGS[@]}" -I "$WORK/tx_$name" -c "$WORK/tx_$name/$name.cu" -o "$WORK/tx_$name/$name.o" \
        >>"$WORK/tx_$name.log" 2>&1 && ! grep -Eq "warning|C75[0-9][0-9]" "$WORK/tx_$name.log"; then
    echo "ok   tests/golden/tx/$name.loom (lowered contraction): loom compile + nvcc -c (sm_90a)"
  else
    echo "FAIL tests/golden/tx/$name.loom (lowered contraction): loom compile + nvcc -c"
    head -n 40 "$WORK/tx_$name.log"
    echo FAIL >"$WORK/tx_$name.failed"
  fi
}
tx_pids=()
for name in gemm_bias_gelu gemm_residual gemm bgemm; do
  tx_one "$name" >"$WORK/tx_$name.report" &
  tx_pids+=($!)
done
for p in "${tx_pids[@]}"; do wait "$p"; done
for name in gemm_bias_gelu gemm_residual gemm bgemm; do
  cat "$WORK/tx_$name.report"
  [ -f "$WORK/tx_$name.failed" ] && STATUS=1
done

# 3. Both kernels in one C program.
cat >"$WORK/two_kernels.c" <<'EOF'
/* Both generated headers in one C translation unit, both kernels in one program. */
#include <stdio.h>
#include <string.h>

#include "batched_gemm.h"
#include "gemm.h"

int main(void) {
  const loom_kernel_info* g = loom_gemm_info();
  const loom_kernel_info* b = loom_batched_gemm_info();
  if (strcmp(g->name, "gemm") != 0 || g->num_args != 3 || g->args[0].rank != 2) return 1;
  if (strcmp(b->name, "batched_gemm") != 0 || b->num_args != 3 || b->args[0].rank != 3) return 1;
  /* A NULL tensor is refused before any CUDA call: no GPU needed. */
  loom_tensor none = loom_tensor_2d(NULL, LOOM_BF16, 1, 1, 8);
  if (loom_gemm(none, none, none, 0) != LOOM_ERR_NULL) return 1;
  loom_tensor none3 = loom_tensor_3d(NULL, LOOM_BF16, 1, 1, 1, 8, 8);
  if (loom_batched_gemm(none3, none3, none3, 0) != LOOM_ERR_NULL) return 1;
  printf("%s: %d threads, %lld bytes of shared memory; %s: %d threads\n", g->name, g->threads_per_block,
         (long long)g->smem_bytes, b->name, b->threads_per_block);
  return 0;
}
EOF
if [ -f "$WORK/gemm/gemm.o" ] && [ -f "$WORK/batched_gemm/batched_gemm.o" ]; then
  if "$CC_BIN" -std=c99 -Wall -Wextra -Werror -I "$ROOT/runtime" -I "$WORK/gemm" -I "$WORK/batched_gemm" \
        -I "$CUDA_INCLUDE" -c "$WORK/two_kernels.c" -o "$WORK/two_kernels.o" >"$WORK/link.log" 2>&1 &&
      "$NVCC" -gencode=arch=compute_90a,code=sm_90a "$WORK/two_kernels.o" "$WORK/gemm/gemm.o" \
        "$WORK/batched_gemm/batched_gemm.o" -o "$WORK/two_kernels" >>"$WORK/link.log" 2>&1; then
    echo "ok   both headers in one C99 file ($CC_BIN), both kernels linked into one program"
    if "$WORK/two_kernels" >"$WORK/run.log" 2>&1; then
      echo "ok   run: $(cat "$WORK/run.log")"
    else
      fail "running the two-kernel program (metadata or argument checks)" "$WORK/run.log"
    fi
  else
    fail "C program with both headers, linked with both kernels" "$WORK/link.log"
  fi
else
  fail "C program with both kernels: not tried, a kernel did not compile"
fi

# 4. The CLI's own nvcc steps.
t0=$SECONDS
# On examples/dual_gemm (one mapping): the CLI's path is what is checked, gemm.cu is compiled above.
if "$LOOM" compile examples/dual_gemm/dual_gemm.loom --emit=ptx -o "$WORK/dual_gemm.ptx" >"$WORK/ptx.log" 2>&1 &&
    grep -q "wgmma.mma_async" "$WORK/dual_gemm.ptx"; then
  echo "ok   loom compile --emit=ptx ($((SECONDS - t0))s)"
else
  fail "loom compile --emit=ptx" "$WORK/ptx.log"
fi
t0=$SECONDS
if "$LOOM" compile examples/dual_gemm/dual_gemm.loom --emit=cubin -o "$WORK/dual_gemm.cubin" >"$WORK/cubin.log" 2>&1 &&
    [ -s "$WORK/dual_gemm.cubin" ]; then
  echo "ok   loom compile --emit=cubin ($((SECONDS - t0))s)"
else
  fail "loom compile --emit=cubin" "$WORK/cubin.log"
fi

if [ $STATUS -eq 0 ]; then
  echo "codegen_compile_check: the generated CUDA compiles and links"
else
  echo "codegen_compile_check: FAILED"
fi
exit $STATUS
