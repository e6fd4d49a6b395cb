#!/usr/bin/env python3
"""menu.py TABLE.md...: what the cost model would pick (smallest estimate) if examples/gemm's 23 mappings were joined by
some of candidates3.sh's (23-28), scored on the measured times of r2's tables: pick / cuBLAS and best / cuBLAS, geomean,
min and the count below 0.90, per menu."""
import math, sys, itertools

def table(path):
    rows = {}
    for line in open(path):
        if not line.startswith('| ') or line.startswith('| shape') or line.startswith('|---'): continue
        c = [x.strip() for x in line.strip().strip('|').split('|')]
        rows[c[0]] = (float(c[1]), [float(x.split()[0]) for x in c[2:31]], [float(x.split('(')[1].rstrip(')')) for x in c[2:31]])
    return rows

g = lambda r: math.exp(sum(map(math.log, r)) / len(r))
for path in sys.argv[1:]:
    t = table(path)
    print(path)
    for extra in [(), (23,), (26,), (23, 26), (25, 26), (23, 25, 26)]:
        menu = list(range(23)) + list(extra)
        pick = [cub / ms[min(menu, key=lambda i: est[i])] for cub, ms, est in t.values()]
        best = [cub / min(ms[i] for i in menu) for cub, ms, est in t.values()]
        print(f'  23 + {list(extra)!s:12}: pick {g(pick):.3f} (min {min(pick):.3f}, {sum(x < .9 for x in pick)} below 0.90); best {g(best):.3f} ({sum(x < .9 for x in best)} below)')
