#!/usr/bin/env python3
"""Session 48: a hand-made "model of turns" for issue 12. Reads the graph of one pipelined loop
(`loom compile X.loom --emit=schedule-graph`, JSON on stdin) and writes (stdout) the same loop as G sub-tile
copies, one per compute warpgroup that would own its rows: every non-load node copied G times ("#0", "#1", ...)
with its first shape extent divided by G (the sub-tile's share of the work), its shared-memory bytes divided by G,
and, for a REGISTER result, a hand-off cost (`spill_cost`) of the bytes a thread holds times 128 threads at 128
bytes a cycle (a round trip through shared memory if another warp group used it); the TMA loads stay single
(both sub-tiles read the same K/V tiles); every edge copied per sub-tile. Usage:
  loom compile F.loom --emit=schedule-graph --mapping=1 | python3 subtiles.py 2 > two.json
  loom schedule two.json --norm-budget 100
"""
import copy
import json
import sys

G = int(sys.argv[1]) if len(sys.argv) > 1 else 2
g = json.load(sys.stdin)
loads = {n["name"] for n in g["nodes"] if n["op"] == "tma_load"}
nodes, edges, seen = [], [], set()
for n in g["nodes"]:
    if n["name"] in loads:
        nodes.append(n)
        continue
    for c in range(G):
        m = copy.deepcopy(n)
        m["name"] = "%s#%d" % (n["name"], c)
        m["shape"] = [m["shape"][0] // G] + list(m["shape"][1:])
        if "regs" in m and m["op"] != "copy":
            m["spill_cost"] = m["regs"] * 4 * 128 // 128
        if "smem" in m:
            m["smem"] //= G
        nodes.append(m)
for e in g["edges"]:
    for c in range(G):
        d = dict(e)
        d["from"] = e["from"] if e["from"] in loads else "%s#%d" % (e["from"], c)
        d["to"] = e["to"] if e["to"] in loads else "%s#%d" % (e["to"], c)
        key = (d["from"], d["to"], d.get("distance", 0))
        if key not in seen:
            seen.add(key)
            edges.append(d)
g["nodes"], g["edges"] = nodes, edges
g["name"] = g.get("name", "loop") + "-%d-subtiles" % G
json.dump(g, sys.stdout, indent=1)
print()
