#!/usr/bin/env bash
# Solve-time benchmark of `loom schedule` on every graph in examples/schedules/ (issue 5).
# Usage: bench/sched/run_bench.sh LOOM_BINARY [TIME_LIMIT_S]   (prints a markdown table)
# LOOM_BINARY is `build/loom` (it is called as `LOOM schedule GRAPH --json`) or a binary that takes
# the schedule arguments directly (set LOOM_SUBCOMMAND= to drop the "schedule" word).
# Columns: "wall s" and "CPU s" are for the whole process (graph parsing, cost normalization,
# search, validation), measured from outside; the machine is shared, so CPU s is the steadier one.
set -euo pipefail
bin=${1:?usage: run_bench.sh LOOM_BINARY [TIME_LIMIT_S]}
limit=${2:-300}
sub=${LOOM_SUBCOMMAND-schedule}
here=$(cd "$(dirname "$0")" && pwd)
echo "| graph | machine | II | L | stages | optimal | wall s | CPU s | modulo ILP s (calls) | SMT s (calls) | Z3 rlimit |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for g in "$here"/../../examples/schedules/*.json; do
  python3 - "$bin" "$sub" "$g" "$limit" <<'PY'
import json, os, resource, subprocess, sys, time
bin_, sub, g, limit = sys.argv[1:5]
cmd = [bin_] + ([sub] if sub else []) + [g, "--json", "--time-limit", limit]
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.monotonic()
p = subprocess.run(cmd, capture_output=True, text=True)
wall = time.monotonic() - t0
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
name = os.path.basename(g)
try:
    j = json.loads(p.stdout)
except Exception:
    print(f"| {name} | ? | error | | | | {wall:.2f} | {cpu:.2f} | | | |"); sys.exit()
s = j["solver"]
print(f"| {name} | {j['machine']} | {j['II']} | {j['length']} | {j.get('stages','')} | {'yes' if j['optimal'] else 'NO'} | "
      f"{wall:.2f} | {cpu:.2f} | {s['ilp_seconds']:.2f} ({s['ilp_calls']}) | {s['smt_seconds']:.2f} ({s['smt_calls']}) | {s['rlimit']} |")
PY
done
