#!/usr/bin/env python3
"""l2fit.py (run from the repository root): would a lower bound of the L2 bytes a call reads over an aggregate L2 rate
improve the cost model's picks? Offline, on the measured sweep tables: each estimate becomes max(estimate, bytes / R)."""
import re,math
def cdiv(a,b): return -(-a//b)
# mapping geometry: (U rows, V cols, multicast_along_M)
G={0:(128,256,1),1:(128,128,1),2:(128,64,1),3:(128,128,1),4:(128,128,1),5:(128,64,1),6:(128,192,1),7:(192,128,1),8:(64,128,1),
   9:(192,192,1),10:(128,256,2),11:(128,192,2),12:(192,192,2),13:(64,64,1),14:(64,64,1),15:(48,128,1),16:(80,128,1),17:(112,128,1),
   18:(144,128,1),19:(176,128,1),20:(208,128,1),21:(240,128,1),22:(80,64,1)}
def l2bytes(m,M,N,K):
    U,V,mc=G[m]; tm,tn=cdiv(M,U),cdiv(N,V)
    rows=sum(min(U,M-i*U) for i in range(tm))  # A rows fetched per column tile
    cols=sum(min(V,N-j*V) for j in range(tn))
    a=rows*K*2*tn
    b=cols*K*2*tm/mc
    return a+b
def load(fn,n=23):
    rows={}
    for line in open(fn):
        if line.startswith("| ") and "x" in line.split("|")[1] and "shape" not in line:
            c=[x.strip() for x in line.split("|")[1:-1]]
            t=[];e=[]
            for x in c[2:2+n]:
                mm=re.match(r"([\d.]+) \(([\d.]+)\)",x); t.append(float(mm.group(1))); e.append(float(mm.group(2)))
            rows[c[0]]=(float(c[1]),t,e)
    return rows
g=lambda l: math.exp(sum(map(math.log,l))/len(l))
for fn in ["bench/results/2026-12-05-h100-intake/r3-sweep-new.md","bench/results/2026-12-05-h100-intake/r3-sweep-old.md","bench/results/2026-12-05-h100-dbuf/r4-gm-sweep-20261125.md"]:
    r=load(fn)
    print("==",fn.split("/")[-1])
    for R in [None,3e6,4e6,5e6,6e6,7e6,8e6]:  # bytes per us
        pb=[];pc=[];low=0
        for s,(cub,t,e) in r.items():
            M,N,K=map(int,s.split("x"))
            ee=[max(e[m], l2bytes(m,M,N,K)/R) if R else e[m] for m in range(23)]
            p=min(range(23),key=lambda m:ee[m])
            pb.append(min(t)/t[p]); pc.append(cub/t[p]); low+= cub/t[p]<0.9
        print(f"  L2 {R} B/us: pick/best {g(pb):.4f} (<0.95: {sum(x<0.95 for x in pb)})  pick/cuBLAS {g(pc):.4f} below0.9 {low}")
