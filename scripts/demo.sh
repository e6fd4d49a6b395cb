#!/usr/bin/env bash
# `make demo`: compile the embedded default example (examples/gemm) and show what loom produced:
# the C header of the generated artifact and the kernel's producer (TMA) and consumer (wgmma) code,
# written to <build>/demo/gemm/ (docs/codegen.md explains it). Where nvcc is installed the kernel is
# also compiled for sm_90a and ptxas's register report is shown; without nvcc that step is skipped.
set -euo pipefail
LOOM=${1:-build/loom}
EXAMPLE=examples/gemm/gemm.loom
OUT=$(dirname "$LOOM")/demo/gemm
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}

echo "== $LOOM check $EXAMPLE"
"$LOOM" check "$EXAMPLE"
echo "ok: program and mapping are valid"
echo

echo "== $LOOM compile $EXAMPLE -o $OUT"
rm -rf "$OUT"
"$LOOM" compile "$EXAMPLE" -o "$OUT"
for f in "$OUT"/gemm.h "$OUT"/gemm.cu; do
  echo "wrote $f ($(wc -l <"$f") lines)"
done
echo

echo "== $OUT/gemm.h: the C ABI (docs/artifact.md)"
cat "$OUT/gemm.h"
echo

echo "== $OUT/gemm.cu: the kernel's producer (TMA) and consumer (wgmma) warpgroups"
# From the producer's banner to the kernel's closing brace (the first line that is only `}`).
sed -n '/\/\/ ---- producer/,/^}$/p' "$OUT/gemm.cu"
echo "   (the setup before it and the host launcher after it: see $OUT/gemm.cu)"
echo

if [ -x "$NVCC" ]; then
  echo "== nvcc -c $OUT/gemm.cu (sm_90a)"
  if "$NVCC" -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -I"$OUT" -Xptxas -v \
      -c "$OUT/gemm.cu" -o "$OUT/gemm.o" >"$OUT/nvcc.log" 2>&1; then
    grep -E "registers|spill" "$OUT/nvcc.log" | sed -e 's/^ptxas info *: *//' -e 's/^ *//' | sort -u
    echo "ok: $OUT/gemm.o"
  else
    cat "$OUT/nvcc.log"
    echo "demo: nvcc failed on the generated kernel" >&2
    exit 1
  fi
else
  echo "== nvcc not found at $NVCC: the generated kernel was not compiled (it needs the CUDA toolkit)"
fi
echo
echo "More: $LOOM compile $EXAMPLE --emit=tree | --emit=ir | --emit=ptx; docs/cli.md, docs/codegen.md"
