#!/usr/bin/env bash
# `make demo`: compile the embedded default example (examples/gemm) and show what loom produced.
# At this stage that is the checked program in canonical form and its instantiated task tree.
set -euo pipefail
LOOM=${1:-build/loom}
EXAMPLE=examples/gemm/gemm.loom
echo "== $LOOM check $EXAMPLE"
"$LOOM" check "$EXAMPLE"
echo "ok: program and mapping are valid"
echo
echo "== $LOOM compile $EXAMPLE --emit=tree"
"$LOOM" compile "$EXAMPLE" --emit=tree
