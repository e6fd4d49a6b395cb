#!/usr/bin/env bash
# Installs the Debian packages loom needs to build and test. Idempotent: packages already present
# are left alone and apt is not touched when nothing is missing. Checks that nvcc is where the
# build expects it (/usr/local/cuda), since CI compiles generated CUDA without a GPU.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ make
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
