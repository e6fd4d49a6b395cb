#!/usr/bin/env bash
# Solve-time benchmark of `loom schedule` on every graph in examples/schedules/ (issue 5).
# Usage: bench/sched/run_bench.sh LOOM_BINARY [TIME_LIMIT_S]   (prints a markdown table)
# LOOM_BINARY is `build/loom` (it is called as `LOOM schedule GRAPH --json`) or a binary that takes
# the schedule arguments directly (set LOOM_SUBCOMMAND= to drop the "schedule" word).
set -euo pipefail
bin=${1:?usage: run_bench.sh LOOM_BINARY [TIME_LIMIT_S]}
limit=${2:-300}
sub=${LOOM_SUBCOMMAND-schedule}
here=$(cd "$(dirname "$0")" && pwd)
echo "| graph | machine | II | L | stages | optimal | total s | modulo ILP s (calls) | SMT s (calls) | Z3 rlimit |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for g in "$here"/../../examples/schedules/*.json; do
  out=$($bin $sub "$g" --json --time-limit "$limit" 2>/dev/null || true)
  python3 - "$g" <<PY "$out"
import json, sys, os
j = json.loads(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].strip() else None
name = os.path.basename(sys.argv[1])
if not j:
    print(f"| {name} | ? | error | | | | | | | |"); sys.exit()
s = j["solver"]
print(f"| {name} | {j['machine']} | {j['II']} | {j['length']} | {j.get('stages','')} | {'yes' if j['optimal'] else 'NO'} | "
      f"{j['seconds']:.2f} | {s['ilp_seconds']:.2f} ({s['ilp_calls']}) | {s['smt_seconds']:.2f} ({s['smt_calls']}) | {s['rlimit']} |")
PY
done
