"""A replica of examples/gemm's launcher estimate (the generated estimate_cycles of its 14
mappings, commit dc69638; cluster_slots 66 for S = 2 and 30 for S = 4 as the H200 reported) for
scoring cost-model variants offline against measured per-mapping tables
(bench/results/2026-11-28-h200-splitk-latency.md, section 6). check.py verifies it reproduces every
estimate in the r3 tables."""
import re, math, glob
GHZ=1.98
def cdiv(a,b): return -(-a//b)
# mapping params: U,V,W,floor(FMA/2048 per iter),Abytes,Bbytes(per block share),split,mc,G(compute wgs)
P={0:(128,256,64,1024,16384,32768,1,1,2),1:(128,128,64,512,16384,16384,1,1,2),2:(128,64,128,512,32768,16384,1,1,2),
   3:(128,128,64,512,16384,16384,2,1,2),4:(128,128,64,512,16384,16384,4,1,2),5:(128,64,128,512,32768,16384,4,1,2),
   6:(128,192,64,768,16384,24576,1,1,2),7:(192,128,64,768,24576,16384,1,1,3),8:(64,128,64,256,8192,16384,1,1,1),
   9:(192,192,64,1152,24576,24576,1,1,3),10:(128,256,64,1024,16384,16384,1,2,2),11:(128,192,64,768,16384,12288,1,2,2),
   12:(192,192,64,1152,24576,12288,1,2,3),13:(64,64,128,256,16384,16384,4,1,1)}
SLOTS={2:66,4:30}
def est(m,M,N,K,sms=132,fillA=1.0,fillB=1.0,mod=None):
    U,V,W,fl,Ab,Bb,S,mc,G=P[m]
    g0=cdiv(M,U); g1=cdiv(N,V); blocks=g0*g1
    trips=cdiv(K,W)
    tile=500.0
    per=max(fl,(Ab*fillA+Bb*fillB)/48.0)
    if mod: per=mod('per',locals(),per)
    tile+=cdiv(trips,S)*per
    owned=cdiv(G,S) if S>1 else G
    tile+=2.0*M*N/blocks/48.0*(owned/G if S>1 else 1)
    if S>1:
        lv=math.ceil(math.log2(S))
        wgb=64*V*4
        tile+=lv*(owned)*wgb/32.0+8000
        slots=SLOTS[S]
        waves=cdiv(blocks,slots)
    elif mc>1:
        tile+=3000
        mcb=blocks//g0*cdiv(g0,2)*2
        waves=cdiv(mcb,132)
    else:
        waves=cdiv(blocks,sms)
    if mod: return mod('total',locals(),waves*tile)
    return waves*tile
def load(f,n=14):
    out=[]
    for l in open(f):
        if not l.startswith('| ') or 'shape' in l: continue
        c=[x.strip() for x in l.split('|')]
        if not re.match(r'^\d+x\d+x\d+$',c[1]): continue
        M,N,K=map(int,c[1].split('x'))
        ms=[];es=[]
        for i in range(n):
            mm=re.match(r'([\d.]+) \(([\d.]+)\)',c[3+i]); ms.append(float(mm.group(1))); es.append(float(mm.group(2)))
        out.append(((M,N,K),float(c[2]),ms,es))
    return out
def flags(M,N,K):
    lda=cdiv(K,8)*8; ldb=cdiv(N,8)*8
    return (1.4 if (lda*2)%32 else 1.0),(1.4 if (ldb*2)%32 else 1.0)
