#!/usr/bin/env bash
# tests/gpu/torch_ops.sh [WORK]: the PyTorch operators on the GPU (docs/pytorch.md). Needs torch
# (with CUDA), nvcc and ninja on the GPU machine, and the generated directories
# ${LOOM_GEN_DIR:-build-gpu/gen}/{gemm,batched_gemm,dual_gemm} with their <entry>_torch.cpp
# (`bash bench/run.sh --prepare` on the development machine writes them with --emit=torch). Builds
# each operator with the Python package (loom.load: torch.utils.cpp_extension, the .cu for sm_90a)
# and runs tests/gpu/torch_ops.py: agreement with torch on fresh inputs, the out= form, a
# non-default stream, bad arguments, torch.compile(fullgraph=True). Then python/tests (pytest),
# whose torch-only tests run here if a loom binary is given ($LOOM; by default build-gpu/bin/loom,
# written by `bash scripts/pack_loom.sh` on the development machine and carried here with its
# libraries). Exit status 0 only if all pass.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 2
WORK=${1:-/tmp}/torch-ops
GEN=${LOOM_GEN_DIR:-build-gpu/gen}
PYTHON=${PYTHON:-python3}
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PATH=$CUDA_HOME/bin:$PATH
export TORCH_EXTENSIONS_DIR=$WORK/torch-extensions
mkdir -p "$WORK"
if ! "$PYTHON" -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  echo "FAIL: $PYTHON cannot import torch with CUDA"; exit 1
fi
if [ -z "${LOOM:-}" ] && [ -x build-gpu/bin/loom ]; then
  export LOOM=$ROOT/build-gpu/bin/loom
fi
fail=0
"$PYTHON" -X faulthandler tests/gpu/torch_ops.py --gen "$GEN" --work "$WORK" || fail=1
if "$PYTHON" -c "import pytest" 2>/dev/null; then
  "$PYTHON" -m pytest -q -rs -p no:cacheprovider python/tests || fail=1
else
  echo "SKIP python/tests: no pytest for $PYTHON"
fi
exit $fail
