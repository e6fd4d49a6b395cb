"""Checks that model19.py reproduces every estimate of r1's two sweep tables (19 mappings)."""
import os
from model19 import *
here = os.path.dirname(os.path.abspath(__file__))
bad = total = 0
for f in ['r1-sweep-20261125.md', 'r1-sweep-20261127.md']:
    for (M, N, K), cub, ms, es in load(os.path.join(here, '..', f), 19):
        fa, fb = flags(M, N, K)
        for m in range(19):
            total += 1
            e = est(m, M, N, K, fillA=fa, fillB=fb) / GHZ / 1000
            if abs(e - es[m]) > 0.06 + 0.01 * es[m]:
                bad += 1
                print('mismatch', M, N, K, m, round(e, 2), es[m])
print(f'{total} estimates, {bad} mismatches')
