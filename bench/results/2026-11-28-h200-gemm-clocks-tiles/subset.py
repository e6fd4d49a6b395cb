# Best-of and pick over a subset of the mappings of a gemm_mappings table: python3 subset.py TABLE.md 0,1,...
import sys, math, re
f=sys.argv[1]; sel=[int(x) for x in sys.argv[2].split(',')]
rows=[]
for l in open(f):
  if not l.startswith('| ') or 'cuBLAS' in l or '---' in l: continue
  c=[x.strip() for x in l.strip().strip('|').split('|')]
  ms=[]
  for x in c[2:]:
    m=re.match(r'([\d.]+) \(([\d.]+)\)',x)
    if m: ms.append((float(m.group(1)),float(m.group(2))))
  rows.append((c[0],float(c[1]),ms))
gm=lambda v: math.exp(sum(map(math.log,v))/len(v))
best=[r[1]/min(r[2][i][0] for i in sel) for r in rows]
pick=[r[1]/r[2][min(sel,key=lambda i:r[2][i][1])][0] for r in rows]
print(f"set {sel[-3:]}..: best {gm(best):.3f} min {min(best):.3f} <0.9 {sum(b<0.9 for b in best)} | pick {gm(pick):.3f} min {min(pick):.3f} <0.9 {sum(b<0.9 for b in pick)}")
