"""fit.py: the grid search over the clock under load (beta), the ring refill (lat) and the fill rate, scored by the
pick's time over the best mapping's on 7 sweeps and 3 fixed tables (bench/results/2026-12-02-h200-transposed r2,
this folder's r2 and r3)."""
import sys, math, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import *
D=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..') + '/'
T=D+'2026-12-02-h200-transposed/'; L=D+'2026-12-02-h200-limits/'
SETS={'t1201':load([T+'r2-gemm-sweep-20261201.md']),'t1125':load([T+'r2-gemm-sweep-20261125.md']),'ttab':load([T+'r2-gemm-table.md']),
      'l1202':load([L+'r2-gemm-sweep-20261202.md']),'l1125':load([L+'r2-gemm-sweep-20261125.md']),'ltab':load([L+'r2-gemm-table.md']),
      'k1203':load([L+'r3-gemm-sweep-20261203.md']),'k1202':load([L+'r3-gemm-sweep-20261202.md']),'ktab':load([L+'r3-gemm-table.md'])}
def score(P):
    out={}
    for k,rows in SETS.items():
        lp=[];low=0
        for s,M,N,K,cub,t,e in rows:
            av=[i for i in range(23) if t[i]]
            p=min(av,key=lambda i:est(i,M,N,K,P)); b=min(av,key=lambda i:t[i])
            lp.append(math.log(t[p]/t[b])); low+= cub/t[p]<0.9
        out[k]=(math.exp(sum(lp)/len(lp)), low)
    return out
def summ(o):
    sw=[v[0] for k,v in o.items() if 'tab' not in k]; tb=[v[0] for k,v in o.items() if 'tab' in k]
    g=lambda a: math.exp(sum(map(math.log,a))/len(a))
    return g(sw), g(tb), sum(v[1] for k,v in o.items() if 'tab' not in k)
res=[]
base=score({'slots4':30}); print('base',summ(base))
for lat in (0,2000,2500,3000):
  for beta in (0,0.1,0.15,0.2,0.25,0.3):
    for fill in (44,48,52):
      o=score({'slots4':30,'fill':fill,'beta':beta,'lat':lat,'cxx':1})
      sw,tb,low=summ(o); res.append((sw*sw*tb,sw,tb,low,lat,beta,fill))
res.sort()
for r in res[:15]: print(r)
