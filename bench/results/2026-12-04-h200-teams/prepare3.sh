#!/usr/bin/env bash
# On the development machine: examples/gemm, batched_gemm, gemm_bias_act (GELU), relu_gemm and
# gemm_reduce with every mapping's `warpspecialize pipeline(D) [pingpong]` replaced by
# `schedule(optimal)` (as tests/unit/schedule_optimal_test.cpp's property test does), compiled into
# build-gpu/s37/gen3 (carried to the device), with each program's --emit=schedule.
set -eu
S=build-gpu/s37/gen3
L=${LOOM:-build/loom}
mkdir -p $S
for e in gemm batched_gemm gemm_bias_act relu_gemm gemm_reduce; do
  mkdir -p $S/$e
  python3 - "$e" "$S/$e/$e.loom" <<'PY'
import sys
name, out = sys.argv[1], sys.argv[2]
s = open(f'examples/{name}/{name}.loom').read()
for h in ["warpspecialize pipeline(2) pingpong", "warpspecialize pipeline(3) pingpong", "warpspecialize pipeline(2)",
          "warpspecialize pipeline(3)", "warpspecialize pipeline(4)", "warpspecialize pipeline(5)"]:
    s = s.replace(h, "schedule(optimal)")
open(out, 'w').write(s)
PY
  /usr/bin/time -f "$e: loom compile %e s" $L compile $S/$e/$e.loom -o $S/$e
  $L compile $S/$e/$e.loom --emit=schedule > $S/$e.schedule.txt 2>&1
  echo "$e: $(grep -c 'chosen: 2 team' $S/$e.schedule.txt) mapping(s) with 2 teams"
done
