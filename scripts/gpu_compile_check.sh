#!/usr/bin/env bash
# Compile-only check of the GPU side, for CI (which has no GPU; tests/gpu/run.sh runs the tests on
# one). Run by CTest as `gpu_tests_compile`. It checks that
#   1. runtime/loom/wgmma_gen.cuh matches runtime/gen_wgmma.py (needs python3; skipped without),
#   2. runtime/loom/runtime.cuh compiles alone with nvcc for sm_90a, and runtime/loom/host.h and
#      runtime/loom/tune.h alone with the host C++ compiler (C++17 and C++20), warnings as errors,
#   3. every self-contained GPU test, tests/gpu/*_test.cu, compiles and links with nvcc for sm_90a,
#      warnings as errors, and without ptxas advisories (setmaxnreg ignored, wgmma serialized:
#      either means the test no longer exercises what it claims).
# Exit 0 when all pass, 1 otherwise, 77 (CTest: skipped) when nvcc is absent.
# Environment: NVCC (default /usr/local/cuda/bin/nvcc), JOBS (parallel compiles, default 2).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
JOBS=${JOBS:-2}

if [ ! -x "$NVCC" ]; then
  echo "gpu_compile_check: SKIPPED: nvcc not found at $NVCC (set NVCC, or install the CUDA toolkit"
  echo "gpu_compile_check: under /usr/local/cuda; scripts/install-deps.sh checks for it)"
  exit 77
fi

WORK=$(mktemp -d /tmp/loom-gpu-compile.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
CUDA_INCLUDE=$(cd "$(dirname "$NVCC")/../include" 2>/dev/null && pwd)
STATUS=0

# 1. The generated wgmma variants are current.
if command -v python3 >/dev/null 2>&1; then
  if ! python3 runtime/gen_wgmma.py --check; then STATUS=1; fi
else
  echo "gpu_compile_check: note: no python3, wgmma_gen.cuh freshness not checked"
fi

# 2. The headers stand alone.
echo '#include "loom/runtime.cuh"' >"$WORK/runtime_alone.cu"
if "$NVCC" -gencode=arch=compute_90a,code=sm_90a -std=c++17 -O2 -I runtime -Werror all-warnings \
    -Xcompiler -Wall,-Wextra -c "$WORK/runtime_alone.cu" -o "$WORK/runtime_alone.o" \
    >"$WORK/runtime_alone.log" 2>&1; then
  echo "ok   runtime/loom/runtime.cuh alone (nvcc sm_90a)"
else
  echo "FAIL runtime/loom/runtime.cuh alone (nvcc sm_90a):"
  cat "$WORK/runtime_alone.log"
  STATUS=1
fi
CXX_BIN=${CXX:-c++}
for header in host.h tune.h; do
  for std in c++17 c++20; do
    if echo "#include \"loom/$header\"" | "$CXX_BIN" -std=$std -Wall -Wextra -Werror -pedantic \
        -I runtime -I "$CUDA_INCLUDE" -fsyntax-only -x c++ - >"$WORK/${header}_$std.log" 2>&1; then
      echo "ok   runtime/loom/$header alone ($CXX_BIN -std=$std)"
    else
      echo "FAIL runtime/loom/$header alone ($CXX_BIN -std=$std):"
      cat "$WORK/${header}_$std.log"
      STATUS=1
    fi
  done
done

# 3. Every GPU test, JOBS at a time.
compile_one() {
  local src=$1 work=$2 nvcc=$3
  local name
  name=$(basename "$src" .cu)
  local t0=$SECONDS
  if "$nvcc" -gencode=arch=compute_90a,code=sm_90a -std=c++17 -O2 -I runtime \
      -Werror all-warnings -Xcompiler -Wall,-Wextra -o "$work/$name" "$src" \
      >"$work/$name.log" 2>&1 &&
      ! grep -q "C75[0-9][0-9]" "$work/$name.log"; then
    echo "ok   $src ($((SECONDS - t0))s)"
  else
    echo "FAIL $src ($((SECONDS - t0))s):"
    head -n 40 "$work/$name.log"
    echo FAIL >"$work/$name.failed"
  fi
}
export -f compile_one
ls tests/gpu/*_test.cu | xargs -P "$JOBS" -I{} bash -c 'compile_one "$@"' _ {} "$WORK" "$NVCC"
if ls "$WORK"/*.failed >/dev/null 2>&1; then STATUS=1; fi

if [ $STATUS -eq 0 ]; then
  echo "gpu_compile_check: all GPU sources compile"
else
  echo "gpu_compile_check: FAILED"
fi
exit $STATUS
