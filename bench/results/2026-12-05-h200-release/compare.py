#!/usr/bin/env python3
"""compare.py: the release variants' times per mapping, from r1's gemm_mappings tables (ratios to gm_o's, and o2's as
the control: the same binary as o, timed last)."""
import math, re, sys

def table(path):
    rows = {}
    for line in open(path):
        if not line.startswith('| ') or line.startswith('| shape') or line.startswith('|---'):
            continue
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        shape, cub = cells[0], float(cells[1])
        ms = [float(c.split()[0]) for c in cells[2:31]]
        rows[shape] = (cub, ms)
    return rows

pre = sys.argv[1] if len(sys.argv) > 1 else 'r1'
t = {v: table(f'{pre}-gm-{v}.md') for v in ('o', 'a', 'b', 'o2')}
shapes = list(t['o'])
mc = [10, 11, 12, 23, 24, 25, 26, 27, 28]
print('time ratio to o, geomean over the 16 shapes (min, max); o2 = the control')
for v in ('a', 'b', 'o2'):
    print(f'\n{v}:')
    for m in [0] + mc:
        r = [t[v][s][1][m] / t['o'][s][1][m] for s in shapes]
        g = math.exp(sum(map(math.log, r)) / len(r))
        print(f'  m{m}: {g:.3f} ({min(r):.3f}, {max(r):.3f})')
print('\nper shape, 2-D mappings 23-28: o / a / b µs; cuBLAS')
for s in shapes:
    cells = ' | '.join(f"{t['o'][s][1][m]:.1f}/{t['a'][s][1][m]:.1f}/{t['b'][s][1][m]:.1f}" for m in [10] + mc[3:])
    print(f'{s}: cuBLAS {t["o"][s][0]:.1f} | m10,23-28: {cells}')
print('\nbest mapping / cuBLAS per variant (all 29), and best of 23 (examples/gemm alone)')
for v in ('o', 'a', 'b', 'o2'):
    r29 = [t[v][s][0] / min(t[v][s][1]) for s in shapes]
    r23 = [t[v][s][0] / min(t[v][s][1][:23]) for s in shapes]
    g = lambda r: math.exp(sum(map(math.log, r)) / len(r))
    print(f'  {v}: all {g(r29):.3f} (min {min(r29):.3f}, below 0.90: {sum(x < 0.9 for x in r29)}); 23: {g(r23):.3f} (below 0.90: {sum(x < 0.9 for x in r23)})')
