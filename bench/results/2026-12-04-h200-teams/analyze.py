#!/usr/bin/env python3
"""Ratios of gr_time.cu times (derived / hand), per shape the median over the rounds of each file
given, and their geomean. Usage: analyze.py FILE... (lines "LABEL MxNxK ms ..." )."""
import math, statistics, sys
from collections import defaultdict
t = defaultdict(list)
for f in sys.argv[1:]:
    for line in open(f):
        p = line.split()
        if len(p) >= 3 and 'x' in p[1]:
            t[(p[0], p[1])].append(float(p[2]))
for hand, opt in (('gr_g2_hand', 'gr_g2_opt'), ('gr_g1_hand_pp', 'gr_g1_opt')):
    shapes = [s for (l, s) in t if l == hand]
    if not shapes: continue
    rs = []
    print(f'{opt} / {hand}:')
    for s in shapes:
        a, b = statistics.median(t[(hand, s)]), statistics.median(t[(opt, s)])
        rs.append(b / a)
        print(f'  {s}: {a:.4f} -> {b:.4f} ms, {b / a:.3f}  ({len(t[(hand, s)])} rounds)')
    print(f'  geomean {math.exp(sum(map(math.log, rs)) / len(rs)):.3f}, min {min(rs):.3f}, max {max(rs):.3f}')
