#!/usr/bin/env bash
# Session 50: loom's compile time (`loom compile X -o DIR`, the solver included) of the examples with every mapping's
# `warpspecialize pipeline(D) [pingpong]` replaced by `schedule(optimal)` (as the property test of
# tests/unit/schedule_optimal_test.cpp replaces them), on this 2-core machine, each alone; and as committed.
set -u
L=${LOOM:-build/loom}
T=$(mktemp -d)
printf '| example | mappings | scheduled instances | loom compile, as committed (s) | with schedule(optimal) (s) | warnings |\n|---|---|---|---|---|---|\n'
for e in gemm batched_gemm dual_gemm relu_gemm gemm_bias_act gemm_residual add_gemm gemm_reduce gemm_reduce_shared \
         flash_attention_2 flash_attention_3 flash_attention_3_causal; do
  f=examples/$e/$e.loom
  python3 - "$f" "$T/$e.loom" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r'warpspecialize\s+pipeline\(\d+\)( pingpong)?', 'schedule(optimal)', s)
open(sys.argv[2], 'w').write(s)
PY
  n=$(grep -c '^mapping' "$f"); k=$(grep -v '^ *//' "$T/$e.loom" | grep -o 'schedule(optimal' | wc -l)
  t0=$(date +%s.%N); $L compile "$f" -o "$T/c-$e" > /dev/null 2>&1; rc0=$?; t1=$(date +%s.%N)
  $L compile "$T/$e.loom" -o "$T/s-$e" > /dev/null 2> "$T/$e.err"; rc1=$?; t2=$(date +%s.%N)
  w=$(grep -c "warning:" "$T/$e.err")
  printf '| %s | %s | %s | %.2f%s | %.2f%s | %s |\n' "$e" "$n" "$k" "$(echo "$t1 - $t0" | bc)" "$([ $rc0 = 0 ] || echo " (rc $rc0)")" \
    "$(echo "$t2 - $t1" | bc)" "$([ $rc1 = 0 ] || echo " (rc $rc1)")" "$w"
done
rm -rf "$T"
