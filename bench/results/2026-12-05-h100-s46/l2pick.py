"""Session 46, offline: would max(estimate, L2 bytes / R) pick better on measured tables? L2 bytes as l2rate.py counts them,
for examples/gemm's 24 mappings. Usage: python3 l2pick.py TABLE.md ... (bench/gemm_mappings.cu tables with estimates)."""
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from l2rate import l2_bytes  # noqa: E402
# examples/gemm's 24 mappings: U, V, S(B shared by S row tiles), T(A shared by T col tiles)
maps={0:(128,256,1,1),1:(128,128,1,1),2:(128,64,1,1),3:(128,128,1,1),4:(128,128,1,1),5:(128,64,1,1),6:(128,192,1,1),
7:(192,128,1,1),8:(64,128,1,1),9:(192,192,1,1),10:(128,256,2,1),11:(128,192,2,1),12:(192,192,2,1),13:(64,64,1,1),14:(64,64,1,1),
15:(48,128,1,1),16:(80,128,1,1),17:(112,128,1,1),18:(144,128,1,1),19:(176,128,1,1),20:(208,128,1,1),21:(240,128,1,1),22:(80,64,1,1),23:(64,128,4,2)}
def load(f):
    hdr=None; out=[]
    for l in open(f):
        if l.startswith('| shape'): hdr=[x.strip() for x in l.split('|')[1:-1]]; continue
        if not l.startswith('| ') or l.startswith('|---'): continue
        c=[x.strip() for x in l.split('|')[1:-1]]
        if 'x' not in c[0] or hdr is None: continue
        d=dict(zip(hdr,c)); ts={}; es={}
        for h,v in d.items():
            m=re.match(r'm(\d+) µs',h)
            if m and int(m.group(1))<24:
                a=v.split()
                try: ts[int(m.group(1))]=float(a[0]); es[int(m.group(1))]=float(a[1].strip('()'))
                except: pass
        out.append((c[0],float(d['cuBLAS µs']),ts,es))
    return out
g=lambda xs: math.exp(sum(map(math.log,xs))/len(xs))
for f in sys.argv[1:]:
    rows=load(f)
    print(f, len(rows))
    for R in (None,5e6,6e6,7e6,8e6,9e6,10e6):
        pb=[];pc=[];below=0
        for sh,cb,ts,es in rows:
            M,N,K=map(int,sh.split('x')[-3:])
            e={m:(es[m] if R is None else max(es[m], l2_bytes(M,N,K,*maps[m])[0]/R)) for m in es}
            p=min(e,key=e.get); b=min(ts.values())
            pb.append(b/ts[p]); pc.append(cb/ts[p]); below+= cb/ts[p]<0.9
        print('  R %-6s pick/best %.4f pick/cuBLAS %.4f below0.9 %d'%(R and '%.0f'%(R/1e6) or 'none',g(pb),g(pc),below))
