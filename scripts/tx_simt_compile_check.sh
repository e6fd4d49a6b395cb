#!/usr/bin/env bash
# scripts/tx_simt_compile_check.sh [LOOM]: the CI check of the SIMT kernels of examples/tx (ctest
# `tx_simt_nvcc_compile`; docs/tensor-expressions.md, "Thread mapping"). For transpose, softmax and
# layernorm: `loom compile examples/tx/X.tx -o DIR`, then nvcc -c of each .cu for sm_90a (no
# warnings, no ptxas advisories), and one C file that includes the three headers and is linked with
# the three objects (the C ABI). No GPU needed. Exit 0 when all pass, 1 otherwise, 77 (CTest:
# skipped) when nvcc is absent. Environment: NVCC (default /usr/local/cuda/bin/nvcc), CC (cc).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
LOOM=${1:-build/loom}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
CC_BIN=${CC:-cc}
if [ ! -x "$NVCC" ]; then
  echo "tx_simt_compile_check: SKIPPED: nvcc not found at $NVCC"
  exit 77
fi
WORK=$(mktemp -d /tmp/loom-tx-simt.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
CUDA_INCLUDE=$(cd "$(dirname "$NVCC")/../include" 2>/dev/null && pwd)
STATUS=0
EXAMPLES=(transpose softmax layernorm)
for ex in "${EXAMPLES[@]}"; do
  if ! "$LOOM" compile "examples/tx/$ex.tx" -o "$WORK/$ex" >"$WORK/$ex.gen.log" 2>&1; then
    echo "FAIL loom compile examples/tx/$ex.tx -o DIR"; head -n 20 "$WORK/$ex.gen.log"; exit 1
  fi
done
compile_one() {
  local ex=$1
  if "$NVCC" -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I runtime -I "$WORK/$ex" -c "$WORK/$ex/$ex.cu" \
      -o "$WORK/$ex/$ex.o" >"$WORK/$ex.nvcc.log" 2>&1 && ! grep -Eq "warning|C75[0-9][0-9]" "$WORK/$ex.nvcc.log"; then
    echo "ok   nvcc -c $ex.cu (sm_90a)"
  else
    echo "FAIL nvcc -c $ex.cu:"; head -n 40 "$WORK/$ex.nvcc.log"; echo FAIL >"$WORK/$ex.failed"
  fi
}
compile_one transpose & compile_one softmax & wait
compile_one layernorm
for ex in "${EXAMPLES[@]}"; do [ -f "$WORK/$ex.failed" ] && STATUS=1; done
cat >"$WORK/abi.c" <<'C'
#include "transpose.h"
#include "softmax.h"
#include "layernorm.h"
int main(void) {
  const loom_kernel_info* k[3] = {loom_transpose_info(), loom_softmax_info(), loom_layernorm_info()};
  (void)loom_transpose; (void)loom_softmax; (void)loom_layernorm;
  return k[0]->num_args == 2 && k[1]->num_args == 2 && k[2]->num_args == 4 ? 0 : 1;
}
C
if [ $STATUS -eq 0 ] && "$CC_BIN" -std=c99 -Wall -Werror -I runtime -I "$CUDA_INCLUDE" -I "$WORK/transpose" -I "$WORK/softmax" \
    -I "$WORK/layernorm" -c "$WORK/abi.c" -o "$WORK/abi.o" >"$WORK/cc.log" 2>&1 &&
    "$NVCC" "$WORK/abi.o" "$WORK"/*/*.o -o "$WORK/abi" >>"$WORK/cc.log" 2>&1; then
  echo "ok   a C99 caller includes the three headers and links the three kernels"
else
  [ $STATUS -eq 0 ] && { echo "FAIL the C99 caller:"; head -n 20 "$WORK/cc.log"; }
  STATUS=1
fi
[ $STATUS -eq 0 ] && echo "tx_simt_compile_check: PASSED" || echo "tx_simt_compile_check: FAILED"
exit $STATUS
