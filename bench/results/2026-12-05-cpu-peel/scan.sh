#!/usr/bin/env bash
# scan.sh DIR NAME: nvcc DIR/mha.cu -> $W/NAME.cubin for sm_90a; print ptxas's wgmma-serialization advisories
# (C75xx) and scripts/sass_hazards.py's count of writes to an in-flight wgmma's A registers. Run from the repo root.
set -u
d=$1; n=$2; W=${W:-/tmp/fx}
export PATH=$HOME/.cache/loom/pyenv/lib/python3.11/site-packages/nvidia/cu13/bin:$PATH  # cuobjdump (scripts/install-deps.sh)
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -I"$d" -cubin "$d/mha.cu" -o "$W/$n.cubin" > "$W/$n.nvcc.txt" 2>&1
echo "$n: nvcc rc=$? $(grep -o 'C75[01][0-9]' "$W/$n.nvcc.txt" | sort | uniq -c | tr '\n' ' ')"
cuobjdump -sass "$W/$n.cubin" > "$W/$n.sass"
echo "$n: $(python3 scripts/sass_hazards.py "$W/$n.sass" | tail -1)"
