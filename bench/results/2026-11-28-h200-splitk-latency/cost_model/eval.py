"""Scores cost-model variants: for each measured table, the launcher's pick under the variant
(argmin of the replica's estimates over the 14 mappings) against the fastest measured mapping and
cuBLAS. Usage: python3 eval.py (prints one line per variant)."""
from model import *
import statistics, sys
D={0:3,1:4,2:4,3:4,4:4,5:3,6:4,7:4,8:8,9:3,10:3,11:4,12:3,13:4}
import os
here=os.path.dirname(os.path.abspath(__file__))
sets={'s25':os.path.join(here,'..','r3-sweep-20261125.md'),'s27':os.path.join(here,'..','r3-sweep-20261127.md'),
      'table':os.path.join(here,'..','..','2026-11-28-h200-gemm-clocks-tiles','r6-table.md')}
def score(name,mod=None,verbose=False):
    d=load(sets[name],14)
    pb=[];pc=[];below=0
    for (M,N,K),cub,ms,es in d:
        fa,fb=flags(M,N,K)
        e=[est(m,M,N,K,fillA=fa,fillB=fb,mod=mod) for m in range(14)]
        p=min(range(14),key=lambda i:e[i]); b=min(ms)
        pb.append(b/ms[p]); pc.append(cub/ms[p]); below+= cub/ms[p]<0.9
        if verbose and ms[p]>1.05*b: print(f'  {M}x{N}x{K} pick m{p} {ms[p]:.1f} best m{ms.index(b)} {b:.1f}')
    return statistics.geometric_mean(pb), statistics.geometric_mean(pc), below, sum(1 for x in pb if x<0.95)
def show(label,mod=None):
    r=[score(n,mod) for n in sets]
    print(f'{label:40s} '+'  '.join(f'{n}: pick/best {a:.3f} pick/cub {b:.3f} <0.9: {c:2d} >5%off: {dd:2d}' for n,(a,b,c,dd) in zip(sets,r)))
show('baseline')
for LAT in [500,800,1200,1500,2000,3000]:
    def mod(stage,L,v,LAT=LAT):
        if stage=='per':
            m=L['m']; return max(v,(LAT+(L['Ab']*L['fillA']+L['Bb']*L['fillB'])/48.0)/(D[m]-1))
        return v
    show(f'latency {LAT}/(D-1)',mod)
print('--- tile fixed cost')
for T in [0,1000,2000,4000,8000]:
    def mod(stage,L,v,T=T):
        if stage=='total': return v + L['waves']*(T-500)
        return v
    show(f'tile {T}',mod)
print('--- per-SM fill depends on active blocks')
for cap in [64,80,100,128]:
    def mod(stage,L,v,cap=cap):
        if stage=='per':
            S=L['S']; blocks=L['blocks']*(S if S>1 else 1)
            active=min(132,blocks)
            rate=min(cap,48.0*132/active)
            return max(L['fl'],(L['Ab']*L['fillA']+L['Bb']*L['fillB'])/rate)
        return v
    show(f'fill cap {cap}',mod)
print('--- cluster_tile_cycles')
for C in [2000,3000,4000,5000,6000,8000,10000,12000]:
    def mod(stage,L,v,C=C):
        if stage=='total' and L['S']>1: return v + L['waves']*(C-8000)
        return v
    show(f'cluster {C}',mod)
print('--- DRAM floor')
for bw in [2000,2400,3000]:
    def mod(stage,L,v,bw=bw):
        if stage=='total':
            M,N,K=L['M'],L['N'],L['K']
            return max(v,(2*M*K+2*K*N+2*M*N)/bw)
        return v
    show(f'dram max {bw}',mod)
    def mod2(stage,L,v,bw=bw):
        if stage=='total':
            M,N,K=L['M'],L['N'],L['K']
            return v+(2*M*K+2*K*N+2*M*N)/bw*0.5
        return v
    show(f'dram add/2 {bw}',mod2)
