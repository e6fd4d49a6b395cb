#!/usr/bin/env bash
# Compile time of loom per example, including a scheduler solve of the loop's graph (issue 12, part 5).
# Usage: bench/sched/compile_time.sh LOOM_BINARY [TIME_LIMIT_S]   (prints a markdown table)
# Per example (examples/*/*.loom): "compile s" is `loom compile X -o DIR` (the CUDA artifact, every
# mapping); "graph s" is `loom compile X --emit=schedule-graph` (the default mapping's pipelined
# loop); "solve s" is `loom schedule - --json` on that graph (wall, whole process: cost
# normalization, search, secondary objective, validation); "total s" their sum. CPU s of the three
# processes are in parentheses (the machine may be shared).
set -euo pipefail
bin=${1:?usage: compile_time.sh LOOM_BINARY [TIME_LIMIT_S]}
limit=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
echo "| example | nodes | edges | II | L | stages | groups | optimal | compile s | graph s | solve s | total s (CPU s) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for ex in "$here"/../../examples/*/*.loom; do
  python3 - "$bin" "$ex" "$limit" <<'PY'
import json, os, resource, subprocess, sys, tempfile, time
bin_, ex, limit = sys.argv[1:4]
name = os.path.basename(ex)[:-5]
def timed(cmd, stdin=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return p, wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
with tempfile.TemporaryDirectory() as d:
    pc, wc, cc = timed([bin_, "compile", ex, "-o", d])
pg, wg, cg = timed([bin_, "compile", ex, "--emit=schedule-graph"])
if pg.returncode != 0:
    msg = (pg.stderr.strip().splitlines() or ["?"])[0].split("error: ")[-1]
    print(f"| {name} | – | – | | | | | no graph: {msg} | {wc:.2f} | {wg:.2f} | | {wc + wg:.2f} ({cc + cg:.2f}) |")
    sys.exit()
g = json.loads(pg.stdout)
ps, ws, cs = timed([bin_, "schedule", "-", "--json", "--time-limit", limit], pg.stdout)
try:
    j = json.loads(ps.stdout)
    res = f"{j['II']} | {j['length']} | {j.get('stages','')} | {j['groups']} | {'yes' if j['optimal'] else 'NO'}"
except Exception:
    res = "error | | | |"
print(f"| {name} | {len(g['nodes'])} | {len(g['edges'])} | {res} | {wc:.2f} | {wg:.2f} | {ws:.2f} | "
      f"{wc + wg + ws:.2f} ({cc + cg + cs:.2f}) |")
PY
done
