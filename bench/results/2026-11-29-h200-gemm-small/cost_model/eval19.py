"""Scores cost-model variants on r1's tables (both sweeps and the fixed table): the pick (argmin of the
replica's estimates over a mapping set) against the fastest measured mapping of that set and cuBLAS.
Usage: python3 eval19.py"""
import os, statistics
from model19 import *
here = os.path.dirname(os.path.abspath(__file__))
sets = {n: os.path.join(here, '..', f'r1-{n}.md') for n in ['sweep-20261125', 'sweep-20261127', 'table']}
data = {n: load(f, 19) for n, f in sets.items()}
def score(name, maps, mod=None, verbose=False):
    pb = []; pc = []; below = 0; off = 0
    for (M, N, K), cub, ms, es in data[name]:
        fa, fb = flags(M, N, K)
        e = {m: est(m, M, N, K, fillA=fa, fillB=fb, mod=mod) for m in maps}
        p = min(maps, key=lambda i: e[i]); b = min(ms[i] for i in maps)
        pb.append(b / ms[p]); pc.append(cub / ms[p]); below += cub / ms[p] < 0.9; off += ms[p] > 1.05 * b
        if verbose and ms[p] > 1.05 * b:
            print(f'    {M}x{N}x{K} pick m{p} {ms[p]:.1f} best m{[i for i in maps if ms[i]==b][0]} {b:.1f}')
    return statistics.geometric_mean(pb), statistics.geometric_mean(pc), below, off
def show(label, maps, mod=None, verbose=False):
    r = [score(n, maps, mod, verbose) for n in sets]
    print(f'{label:34s} ' + '  '.join(f'{n[-5:]}: {a:.3f} {b:.3f} <0.9:{c:2d} >5%:{d:2d}' for n, (a, b, c, d) in zip(sets, r)))
OLD = list(range(14))
print('columns per table: pick/best, pick/cuBLAS, shapes below 0.90x cuBLAS, picks more than 5% off the best')
show('old 14, committed model', OLD)
show('old + m14, committed model', OLD + [14])
show('old + m14 + m15, committed model', OLD + [14, 15])
show('all 19, committed model', list(range(19)))
print('--- aggregate L2 cap: per-SM fill = min(48, CAP / busy SMs)')
for cap in [2500, 3000, 3500, 4000, 5000, 6336]:
    def mod(stage, L, v, cap=cap):
        if stage == 'per':
            S = L['S']; busy = min(132, L['blocks'] * (S if S > 1 else 1))
            if L['mc'] > 1: busy = min(132, L['blocks'])
            rate = min(48.0, cap / busy)
            return max(L['fl'], (L['Ab'] * L['fillA'] + L['Bb'] * L['fillB']) / rate)
        return v
    show(f'old + m14, cap {cap}', OLD + [14], mod)
