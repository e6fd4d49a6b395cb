#!/usr/bin/env bash
# Installs the Debian packages loom needs to build and test. Idempotent: packages already present
# are left alone and apt is not touched when nothing is missing. Checks that nvcc is where the
# build expects it (/usr/local/cuda), since CI compiles generated CUDA without a GPU.
#
# Then, from PyPI, what the tests of the PyTorch side need (docs/pytorch.md, "CI"), each in a
# folder of its own so that nothing changes the machine's Python:
#   - a virtual environment with pytest, setuptools and wheel, for python/tests (CTest `python_tests`):
#     $LOOM_PYENV, default ~/.cache/loom/pyenv;
#   - the PyTorch headers, for compiling every generated operator (CTest `torch_ext_compile`): the
#     torch wheel installed with --no-deps into $LOOM_TORCH_DIR (default ~/.cache/loom/torch-<ver>).
#     PyPI has no CPU-only Linux wheel; the CUDA wheel without its CUDA libraries is a 530 MB
#     download (1.2 GB installed, about 1.5 minutes here) that holds the headers but cannot be
#     imported, which the compile check does not need. LOOM_NO_TORCH=1 skips it (the check is then
#     skipped).
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ make pkg-config
  clang libclang-rt-14-dev        # `make fuzz`: libFuzzer with ASan and UBSan
  libisl-dev                      # polyhedral sets/maps (tensor-expression front end)
  libz3-dev                       # SMT (joint warp specialization + pipelining)
  coinor-libcbc-dev               # integer linear programs (modulo scheduling, cost normalization)
  nlohmann-json3-dev              # JSON in/out (diagnostics, schedules)
  libgtest-dev                    # unit tests
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present"
fi

if [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: error: nvcc not found at /usr/local/cuda/bin/nvcc" >&2
  echo "install-deps: hint: install the CUDA toolkit (13.x) under /usr/local/cuda" >&2
  exit 1
fi
echo "install-deps: nvcc $(/usr/local/cuda/bin/nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"

# ---- Python (PyPI) -------------------------------------------------------------------------------
TORCH_VERSION=2.11.0   # what the GPU machines have (tests/gpu/torch_ops.sh)
PYENV=${LOOM_PYENV:-$HOME/.cache/loom/pyenv}
TORCH_DIR=${LOOM_TORCH_DIR:-$HOME/.cache/loom/torch-$TORCH_VERSION}
PYTHON=${PYTHON:-python3}

if [ ! -x "$PYENV/bin/python" ] || ! "$PYENV/bin/python" -c "import pytest, setuptools, wheel" 2>/dev/null; then
  echo "install-deps: creating $PYENV (pytest, setuptools, wheel)"
  "$PYTHON" -m venv "$PYENV"
  "$PYENV/bin/python" -m pip install -q --disable-pip-version-check pytest "setuptools>=61" wheel
else
  echo "install-deps: $PYENV present"
fi

# cuobjdump and nvdisasm (the CUDA toolkit's, as PyPI wheels): scripts/codegen_compile_check.sh
# reads the generated attention kernels' SASS with them (scripts/sass_hazards.py).
SASS_TOOLS_VERSION=13.5.37
if ! ls "$PYENV"/lib/python3*/site-packages/nvidia/cu13/bin/nvdisasm >/dev/null 2>&1 ||
    ! ls "$PYENV"/lib/python3*/site-packages/nvidia/cu13/bin/cuobjdump >/dev/null 2>&1; then
  echo "install-deps: installing cuobjdump and nvdisasm $SASS_TOOLS_VERSION into $PYENV"
  "$PYENV/bin/python" -m pip install -q --disable-pip-version-check \
    "nvidia-cuda-cuobjdump==$SASS_TOOLS_VERSION" "nvidia-cuda-nvdisasm==$SASS_TOOLS_VERSION"
else
  echo "install-deps: cuobjdump and nvdisasm present in $PYENV"
fi

if [ "${LOOM_NO_TORCH:-0}" = 1 ]; then
  echo "install-deps: LOOM_NO_TORCH=1: not installing the PyTorch headers"
elif [ ! -f "$TORCH_DIR/torch/include/torch/library.h" ]; then
  echo "install-deps: installing the PyTorch $TORCH_VERSION headers into $TORCH_DIR (torch wheel, --no-deps)"
  rm -rf "$TORCH_DIR.partial"
  "$PYENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps --target "$TORCH_DIR.partial" \
    "torch==$TORCH_VERSION"
  rm -rf "$TORCH_DIR"
  mv "$TORCH_DIR.partial" "$TORCH_DIR"
else
  echo "install-deps: PyTorch $TORCH_VERSION headers present in $TORCH_DIR"
fi
