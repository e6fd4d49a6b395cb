#!/usr/bin/env python3
"""What the launcher's picks would have run with a deeper ring on a mapping: reads a gemm_mappings
table in which mapping NEW is mapping OLD with another ring depth (same tiles, so the same cost-model
estimate and the same picks) and reports, per shape where the launcher picks OLD, OLD's and NEW's
times, and over the sweep the pick / cuBLAS geomean, min and count below 0.9 with OLD's times
replaced by NEW's; plus NEW against OLD on every shape.
Usage: subst.py TABLE.md OLD NEW [OLD NEW ...]"""
import math
import re
import sys

path, pairs = sys.argv[1], sys.argv[2:]
sub = {int(pairs[i]): int(pairs[i + 1]) for i in range(0, len(pairs), 2)}
lines = open(path).read().split('\n')
hdr = [x.strip() for x in next(l for l in lines if l.startswith('| shape')).split('|')[1:-1]]
ip = hdr.index('pick')
nm = sum(1 for c in hdr if re.fullmatch(r'm\d+ µs \(est\.\)', c))
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))
base, new, every = [], [], {k: [] for k in sub}
for l in lines:
    if not re.match(r'\| \d+x', l):
        continue
    c = [x.strip() for x in l.split('|')[1:-1]]
    cub = float(c[1])
    us = [float(x.split()[0]) for x in c[2:2 + nm]]
    pick = int(c[ip][1:])
    for o, n in sub.items():
        every[o].append(us[o] / us[n])
    t_old, t_new = us[pick], us[sub.get(pick, pick)]
    base.append(cub / t_old)
    new.append(cub / t_new)
    if pick in sub:
        print(f'| {c[0]} | m{pick} | {t_old:.2f} | {t_new:.2f} | {t_old / t_new:.3f} |')
for o, n in sub.items():
    v = every[o]
    print(f'- m{o} / m{n} time on all {len(v)} shapes: geomean {gm(v):.3f}, min {min(v):.3f}, max {max(v):.3f}')
print(f'- pick / cuBLAS: geomean {gm(base):.3f} -> {gm(new):.3f}, min {min(base):.3f} -> {min(new):.3f}, '
      f'below 0.90: {sum(x < 0.9 for x in base)} -> {sum(x < 0.9 for x in new)}')
