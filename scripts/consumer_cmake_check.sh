#!/usr/bin/env bash
# Builds examples/consumer_cmake — a stand-alone CMake project that calls loom_add_library() on
# examples/gemm/gemm.loom and links the generated kernel into a C++ program — with the loom binary
# under test, as a user's project would. Run by CTest as `consumer_cmake_build` (no GPU needed; the
# program itself runs on the device: bash bench/run.sh runs build-gpu/gen/consumer when present).
# Exit 0 when it configures and builds, 1 otherwise, 77 (CTest: skipped) without nvcc.
# Usage: consumer_cmake_check.sh [LOOM] [OUT_BINARY]   (OUT_BINARY: where to copy the built program)
# Environment: NVCC (default /usr/local/cuda/bin/nvcc), KEEP=1 keeps the build dir, FULL=1 builds every
# mapping of examples/gemm (the default mapping alone otherwise).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOOM=$(cd "$(dirname "${1:-$ROOT/build/loom}")" && pwd)/$(basename "${1:-$ROOT/build/loom}")
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
if [ ! -x "$NVCC" ]; then
  echo "consumer_cmake_check: SKIPPED: nvcc not found at $NVCC"
  exit 77
fi
WORK=$(mktemp -d /tmp/loom-consumer.XXXXXX)
if [ "${KEEP:-0}" = 1 ]; then echo "consumer_cmake_check: build dir $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
# examples/gemm's default mapping alone (the candidates differ in tile sizes only, and
# codegen_nvcc_compile compiles every one of them): what is checked here is the CMake integration.
# FULL=1 builds the program as it is.
PROGRAM=$ROOT/examples/gemm/gemm.loom
if [ "${FULL:-0}" != 1 ]; then
  PROGRAM=$WORK/gemm.loom
  awk '/^mapping sm_90a when\(/ { exit } { print }' "$ROOT/examples/gemm/gemm.loom" >"$PROGRAM"
fi
if ! cmake -S "$ROOT/examples/consumer_cmake" -B "$WORK/build" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DLOOM_BINARY="$LOOM" -DLOOM_PROGRAM="$PROGRAM" -DCMAKE_CUDA_COMPILER="$NVCC"; then
  echo "consumer_cmake_check: FAILED: configure"
  exit 1
fi
if ! cmake --build "$WORK/build"; then
  echo "consumer_cmake_check: FAILED: build"
  exit 1
fi
[ -x "$WORK/build/consumer" ] || { echo "consumer_cmake_check: FAILED: no consumer binary"; exit 1; }
if [ $# -ge 2 ]; then cp "$WORK/build/consumer" "$2"; fi
echo "consumer_cmake_check: PASSED (examples/consumer_cmake built with loom_add_library)"
