#!/usr/bin/env python3
"""analyze_fused.py TABLE.md FIRST_NEW: from fused_bench.py --by-mapping's table, per shape the fastest
committed mapping (index < FIRST_NEW) against the fastest candidate, and how often a candidate wins."""
import math
import sys

path, first_new = sys.argv[1], int(sys.argv[2])
lines = open(path).read().split('## loom\'s mappings by index')[1].splitlines()
hdr, rows = None, []
for l in lines:
    if not l.startswith('| '):
        continue
    c = [x.strip() for x in l.strip().strip('|').split('|')]
    if hdr is None:
        hdr = c
        continue
    if c[0].startswith('---'):
        continue
    rows.append(dict(zip(hdr, c)))
wins, ratios = [], []
for r in rows:
    t = {int(k[1:]): float(v) for k, v in r.items() if k.startswith('m') and k[1:].isdigit() and v not in ('n/a', '')}
    old = min((v, k) for k, v in t.items() if k < first_new)
    new = min((v, k) for k, v in t.items() if k >= first_new)
    ratios.append(old[0] / min(old[0], new[0]))
    if new[0] < old[0]:
        wins.append(f'{r[hdr[0]]} m{new[1]} {old[0] / new[0]:.3f}x m{old[1]}')
g = math.exp(sum(map(math.log, ratios)) / len(ratios))
print(f'- {len(rows)} shapes; a candidate (m{first_new}+) is the fastest on {len(wins)}: ' + '; '.join(wins))
print(f'- best with candidates / best committed, geomean over the shapes: {g:.4f}x faster')
