# Best-of / pick over the first OLD mappings and over all, from a gemm_mappings table: python3 best_of.py TABLE.md OLD
import sys, math, re
f=sys.argv[1]; old=int(sys.argv[2]) if len(sys.argv)>2 else 13
rows=[]
for l in open(f):
  if not l.startswith('| ') or 'cuBLAS' in l or '---' in l: continue
  c=[x.strip() for x in l.strip().strip('|').split('|')]
  shape=c[0]; cub=float(c[1])
  ms=[]
  for x in c[2:]:
    m=re.match(r'([\d.]+) \(([\d.]+)\)',x)
    if m: ms.append((float(m.group(1)),float(m.group(2))))
  rows.append((shape,cub,ms))
n=len(rows[0][2])
def gm(v): return math.exp(sum(map(math.log,v))/len(v))
for label,sel in [("old m0-m%d"%(old-1),range(old)),("all",range(n))]:
  best=[r[1]/min(r[2][i][0] for i in sel) for r in rows]
  pick=[]
  for r in rows:
    i=min(sel,key=lambda i:r[2][i][1]); pick.append(r[1]/r[2][i][0])
  print(f"{label}: best geo {gm(best):.3f} min {min(best):.3f} <0.9: {sum(b<0.9 for b in best)} | pick geo {gm(pick):.3f} min {min(pick):.3f} <0.9: {sum(b<0.9 for b in pick)}")
print("per new mapping: shapes where it's the best of all")
from collections import Counter
cnt=Counter(min(range(n),key=lambda i:r[2][i][0]) for r in rows); print(sorted(cnt.items()))
for r in rows:
  bo=min(r[2][i][0] for i in range(old)); ba=min(r[2][i][0] for i in range(n))
  if ba<bo*0.97 or r[1]/bo<0.9: 
    bi=min(range(n),key=lambda i:r[2][i][0])
    print(f"  {r[0]:>18} cub {r[1]:8.2f} best-old {bo:8.2f} ({r[1]/bo:.2f}) best-all m{bi} {ba:8.2f} ({r[1]/ba:.2f})")
