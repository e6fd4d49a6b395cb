"""Checks that model.py reproduces every estimate (the bracketed numbers) of the r3 tables."""
import os
from model import *
here = os.path.dirname(os.path.abspath(__file__))
bad = total = 0
for f in ['r3-sweep-20261125.md', 'r3-sweep-20261127.md']:
    for (M, N, K), cub, ms, es in load(os.path.join(here, '..', f), 14):
        fa, fb = flags(M, N, K)
        for m in range(14):
            total += 1
            e = est(m, M, N, K, fillA=fa, fillB=fb) / GHZ / 1000
            if abs(e - es[m]) > 0.06 + 0.01 * es[m]:
                bad += 1
                print('mismatch', M, N, K, m, round(e, 2), es[m])
print(f'{total} estimates, {bad} mismatches')
