#!/usr/bin/env bash
# tests/gpu/e2e/tx_simt.sh WORK: end-to-end test and benchmark of the SIMT kernels of examples/tx
# (transpose, softmax, layernorm). Needs the generated files in ${LOOM_GEN_DIR:-build-gpu/gen}/
# {transpose,softmax,layernorm}/ (`loom compile examples/tx/X.tx -o DIR/X` on the development
# machine, carried to the device). Builds tests/gpu/tx_simt_e2e.cu against them, runs the checks and
# the bandwidth table (vs cudaMemcpy device-to-device), compute-sanitizer memcheck on the small
# shapes, and the torch peers (tests/gpu/e2e/tx_simt_torch.py) when torch imports.
# Exit status 0 only if every check passes.
set -u
WORK=${1:-/tmp}
GEN=${LOOM_GEN_DIR:-build-gpu/gen}
RUNTIME=${LOOM_RUNTIME:-runtime}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for e in transpose softmax layernorm; do
  if [ ! -f "$GEN/$e/$e.cu" ]; then echo "no $GEN/$e/$e.cu: run loom compile examples/tx/$e.tx -o $GEN/$e first"; exit 1; fi
done
"$NVCC" -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -I"$RUNTIME" -I"$GEN/transpose" -I"$GEN/softmax" \
  -I"$GEN/layernorm" "$HERE/../tx_simt_e2e.cu" "$GEN/transpose/transpose.cu" "$GEN/softmax/softmax.cu" \
  "$GEN/layernorm/layernorm.cu" -o "$WORK/tx_simt_e2e" || exit 1
fail=0
"$WORK/tx_simt_e2e" || fail=1
echo "== compute-sanitizer --tool memcheck, small shapes"
"$SAN" --tool memcheck --error-exitcode 99 --print-limit 20 "$WORK/tx_simt_e2e" --small --no-bench || fail=1
echo "== torch peers"
python3 "$HERE/tx_simt_torch.py" || echo "(torch peers unavailable)"
exit $fail
