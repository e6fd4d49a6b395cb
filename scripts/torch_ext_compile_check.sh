#!/usr/bin/env bash
# Compile-only check of the PyTorch operators, for CI (CTest `torch_ext_compile`; no GPU, no
# importable torch: only its headers, installed by scripts/install-deps.sh):
#   1. `loom compile --emit=torch` on every example; an example the CUDA back end cannot lower yet
#      (exit 1 with "the CUDA back end cannot lower") is reported and skipped, any other failure
#      fails the check;
#   2. each generated <entry>_torch.cpp (with runtime/loom/torch.h) compiles against the PyTorch
#      headers with the host compiler, C++17, as torch.utils.cpp_extension compiles it, warnings as
#      errors;
#   3. examples/gemm's .cu (its default mapping: the candidates differ in tile sizes only, and ten
#      mappings take minutes to compile) compiles with nvcc under the flags torch.utils.cpp_extension
#      adds to every .cu (-D__CUDA_NO_HALF_OPERATORS__ ... --expt-relaxed-constexpr) followed by the
#      Python package's own (python/loom/_build.py NVCC_FLAGS, which undo those macros), so that
#      loom.compile's build works.
# Exit 0 when all pass, 1 otherwise, 77 (CTest: skipped) when the PyTorch headers or nvcc are absent.
# Usage: scripts/torch_ext_compile_check.sh path/to/loom
# Environment: LOOM_TORCH_DIR (default ~/.cache/loom/torch-2.11.0: a folder holding torch/include),
# NVCC (default /usr/local/cuda/bin/nvcc), CXX (default c++), JOBS (default 2).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
LOOM=${1:?usage: torch_ext_compile_check.sh path/to/loom}
TORCH_DIR=${LOOM_TORCH_DIR:-$HOME/.cache/loom/torch-2.11.0}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
CXX=${CXX:-c++}
JOBS=${JOBS:-2}
TI=$TORCH_DIR/torch/include

if [ ! -f "$TI/torch/library.h" ]; then
  echo "torch_ext_compile: SKIPPED: no PyTorch headers in $TI (scripts/install-deps.sh installs them;"
  echo "torch_ext_compile: set LOOM_TORCH_DIR to a folder holding torch/include)"
  exit 77
fi
if [ ! -x "$NVCC" ]; then
  echo "torch_ext_compile: SKIPPED: nvcc not found at $NVCC (the operators include the CUDA runtime headers)"
  exit 77
fi
CUDA_INCLUDE=$(cd "$(dirname "$NVCC")/../include" && pwd)
WORK=$(mktemp -d /tmp/loom-torch-compile.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
STATUS=0
TORCH_INCLUDES=(-isystem "$TI" -isystem "$TI/torch/csrc/api/include" -isystem "$CUDA_INCLUDE")

# 1. Generate.
entries=()
for f in examples/*/*.loom; do
  name=$(basename "$f" .loom)
  if "$LOOM" compile "$f" --emit=torch -o "$WORK/$name" 2>"$WORK/$name.err"; then
    entries+=("$name")
  elif grep -q "the CUDA back end cannot lower" "$WORK/$name.err"; then
    echo "SKIP $name: the CUDA back end cannot lower it yet ($(head -1 "$WORK/$name.err"))"
  else
    echo "FAIL $name: loom compile --emit=torch"; cat "$WORK/$name.err"; STATUS=1
  fi
done
[ ${#entries[@]} -gt 0 ] || { echo "FAIL: no example generated an operator"; exit 1; }

# 2. Every operator against the PyTorch headers (the flags cpp_extension uses for C++ sources).
# The PyTorch headers the operators include are parsed once, into a precompiled header made with
# the same flags (20 s a file without it, 5 s with it); a compiler that cannot use it (other
# flags, another compiler) ignores it and parses the headers itself, with the same result.
CXX_FLAGS=(-std=c++17 -fPIC -O0 -Wall -Wextra -Werror -Wno-unused-parameter -D_GLIBCXX_USE_CXX11_ABI=1
           -DTORCH_API_INCLUDE_EXTENSION_H "${TORCH_INCLUDES[@]}")
mkdir -p "$WORK/pch"
printf '#include <%s>\n' ATen/cuda/CUDAContext.h c10/cuda/CUDAGuard.h torch/library.h ATen/ATen.h ATen/MemoryOverlap.h \
  >"$WORK/pch/loom_torch_pch.h"
PCH=()
if "$CXX" "${CXX_FLAGS[@]}" -x c++-header "$WORK/pch/loom_torch_pch.h" -o "$WORK/pch/loom_torch_pch.h.gch" \
     >"$WORK/pch/pch.log" 2>&1; then
  PCH=(-include "$WORK/pch/loom_torch_pch.h")
else
  echo "note: no precompiled PyTorch header (each operator parses the headers itself):"; head -n 20 "$WORK/pch/pch.log"
fi
compile_op() {
  local name=$1 dir=$WORK/$1 src
  src=$(ls "$dir"/*_torch.cpp)
  if "$CXX" "${CXX_FLAGS[@]}" "${PCH[@]}" -c -DTORCH_EXTENSION_NAME="${name}_torch" \
       -I "$dir" -I runtime "$src" -o "$dir/op.o" >"$dir/op.log" 2>&1; then
    echo "PASS $name: $(basename "$src") compiles against the PyTorch headers"
  else
    echo "FAIL $name: $(basename "$src")"; cat "$dir/op.log"; return 1
  fi
}
pids=()
for name in "${entries[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.2; done
  compile_op "$name" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || STATUS=1; done

# 3. gemm.cu (the default mapping) under cpp_extension's nvcc flags, then the package's.
mkdir -p "$WORK/gemm_default"
if [ -d "$WORK/gemm" ] && ! { awk '/^mapping sm_90a when\(/ { exit } { print }' examples/gemm/gemm.loom >"$WORK/gemm_default/gemm.loom" &&
    "$LOOM" compile "$WORK/gemm_default/gemm.loom" -o "$WORK/gemm_default" >"$WORK/gemm_default/gen.log" 2>&1; }; then
  echo "FAIL gemm: its default mapping alone did not compile"; cat "$WORK/gemm_default/gen.log"; STATUS=1
elif [ -d "$WORK/gemm" ]; then
  read -r -a PKG_FLAGS <<<"$(PYTHONPATH=python python3 -c 'from loom._build import NVCC_FLAGS; print(" ".join(NVCC_FLAGS))')"
  if [ ${#PKG_FLAGS[@]} -eq 0 ]; then echo "FAIL: cannot read NVCC_FLAGS from python/loom/_build.py"; STATUS=1; fi
  if "$NVCC" -c -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_BFLOAT16_CONVERSIONS__ \
       -D__CUDA_NO_HALF2_OPERATORS__ --expt-relaxed-constexpr -Xcompiler -fPIC -std=c++17 "${PKG_FLAGS[@]}" \
       -I "$WORK/gemm_default" -I runtime "$WORK/gemm_default/gemm.cu" -o "$WORK/gemm_default/gemm.o" >"$WORK/gemm_default/cu.log" 2>&1; then
    echo "PASS gemm: gemm.cu compiles with torch.utils.cpp_extension's nvcc flags and the package's"
  else
    echo "FAIL gemm: gemm.cu under cpp_extension's nvcc flags"; cat "$WORK/gemm_default/cu.log"; STATUS=1
  fi
fi
exit $STATUS
