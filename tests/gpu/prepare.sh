#!/usr/bin/env bash
# tests/gpu/prepare.sh: on the development machine, everything the end-to-end tests of
# tests/gpu/run.sh read from ${LOOM_GEN_DIR:-build-gpu/gen}, in one command (each test's header
# says what it reads; this runs those recipes):
#   - bash bench/run.sh --prepare: builds loom in build-gpu/ and generates gemm, batched_gemm,
#     dual_gemm, the gemm variants (column-major B, multicast, alternate, ping-pong, C from global),
#     gemm_reduce's ping-pong, the attention kernels, the torch extension sources and the consumer;
#   - loom compile of add_gemm, relu_gemm, gemm_residual, gemm_reduce, gemm_reduce_shared;
#   - gemm_bias_act once per activation (tests/gpu/e2e/gemm_bias_act.sh --gen);
#   - the tensor-expression examples into gen/tx/ (tests/gpu/e2e/tx.sh, tx_simt.sh), and examples/gemm
#     into gen/tx/examples_gemm (bench/tx.sh's hand-mapped reference).
# Then carry build-gpu/gen to the device and run `bash tests/gpu/run.sh` there (LOOM_GPU_ONLY picks
# steps). Environment: LOOM_GEN_DIR, LOOM (a loom binary; default the one bench/run.sh builds).
# Exit status 1 if any step failed (the others still run).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
gen=${LOOM_GEN_DIR:-build-gpu/gen}
rc=0
bash bench/run.sh --prepare || rc=1
loom=${LOOM:-${LOOM_BUILD_DIR:-build-gpu}/loom}
if [ ! -x "$loom" ]; then
  echo "prepare.sh: no loom binary at $loom"
  exit 1
fi
for e in add_gemm relu_gemm gemm_residual gemm_reduce gemm_reduce_shared; do
  rm -rf "${gen:?}/$e"
  "$loom" compile "examples/$e/$e.loom" -o "$gen/$e" || { echo "prepare.sh: $e not generated"; rc=1; }
done
for a in identity relu gelu silu gelu_fast; do
  rm -rf "${gen:?}/gemm_bias_act_$a"
  LOOM=$loom bash tests/gpu/e2e/gemm_bias_act.sh --gen "$a" "$gen" || { echo "prepare.sh: gemm_bias_act_$a not generated"; rc=1; }
done
for f in examples/tx/*.tx; do  # every example: the contractions (e2e/tx.sh, bench/tx.sh) and the SIMT kernels (e2e/tx_simt.sh)
  x=$(basename "$f" .tx)
  rm -rf "${gen:?}/tx/$x"
  "$loom" compile "$f" -o "$gen/tx/$x" || { echo "prepare.sh: tx/$x not generated"; rc=1; }
done
# bench/tx.sh times the generated gemm against the hand-mapped one, which it reads from tx/examples_gemm
rm -rf "${gen:?}/tx/examples_gemm"
"$loom" compile examples/gemm/gemm.loom -o "$gen/tx/examples_gemm" || { echo "prepare.sh: tx/examples_gemm not generated"; rc=1; }
echo "prepare.sh: $(du -sh "$gen" | cut -f1) in $gen (carry it; the device tool takes up to 64 MiB)"
exit $rc
