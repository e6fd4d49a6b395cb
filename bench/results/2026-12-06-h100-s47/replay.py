#!/usr/bin/env python3
"""Session 47: the dispatcher's pick replayed on bench/gemm_mappings.cu tables (r1/r3-listed.md, r1/r3-sweep.md):
the estimates they print, examples/gemm's 24 mappings with and without candidates 26, 28, 31, the first of equal
estimates or the one loading the fewest bytes (l2: each block's A panel / T + B panel / S, whole clusters).
Usage: python3 replay.py r1/r3-listed.md r1/r3-sweep.md"""
import math,sys
cfg={0:(128,256,1,1),1:(128,128,1,1),2:(128,64,1,1),3:(128,128,1,1),4:(128,128,1,1),5:(128,64,1,1),6:(128,192,1,1),7:(192,128,1,1),8:(64,128,1,1),9:(192,192,1,1),10:(128,256,2,1),11:(128,192,2,1),12:(192,192,2,1),13:(64,64,1,1),14:(64,64,1,1),15:(48,128,1,1),16:(80,128,1,1),17:(112,128,1,1),18:(144,128,1,1),19:(176,128,1,1),20:(208,128,1,1),21:(240,128,1,1),22:(80,64,1,1),23:(64,128,4,2),
 24:(128,256,1,1),25:(128,192,1,1),26:(128,256,4,1),27:(136,192,1,1),28:(128,256,2,2),29:(128,192,1,4),30:(128,256,4,2),31:(128,192,2,4)}
cd=lambda a,b:-(-a//b)
def l2(i,M,N,K):
    U,V,S,T=cfg[i]
    bm=cd(cd(M,U),S)*S; bn=cd(cd(N,V),T)*T
    return bm*bn*(U/T+V/S)*K*2
def parse(f):
    rows=[]
    for l in open(f):
        if not l.startswith('|'): continue
        c=[x.strip() for x in l.strip().strip('|').split('|')]
        if c[0].startswith('shape') or c[0].startswith('---'): continue
        ms=c[2:34]
        est=[float(x.split('(')[1].rstrip(')')) if '(' in x else 1e18 for x in ms]
        t=[float(x.split(' ')[0]) if x[0].isdigit() else 1e18 for x in ms]
        rows.append((tuple(map(int,c[0].split('x'))),float(c[1]),est,t))
    return rows
g=lambda xs: math.exp(sum(map(math.log,xs))/len(xs))
def pick(menu,est,shape,eps,tb):
    m=min(est[i] for i in menu)
    cands=[i for i in menu if est[i]<=m*(1+eps)]
    if tb: return min(cands,key=lambda i:(l2(i,*shape),i))
    return min(cands,key=lambda i:(est[i],i))
for f in sys.argv[1:]:
    rows=parse(f)
    for name,menu in [('base',list(range(24))),('+26,28,31',list(range(24))+[26,28,31]),('+26,28,30,31',list(range(24))+[26,28,30,31])]:
        for eps,tb in [(0,False),(0,True),(0.005,True),(0.02,True)]:
            r=[row[1]/row[3][pick(menu,row[2],row[0],eps,tb)] for row in rows]
            b=[row[1]/min(row[3][i] for i in menu) for row in rows]
            print(f, name, 'eps',eps,'tb',tb,'pick %.3f'%g(r),'below0.9',sum(x<0.9 for x in r),'best %.3f'%g(b))


def detail(f):
    rows=parse(f)
    base=list(range(24)); new=base+[26,28,31]
    for row in rows:
        pb=pick(base,row[2],row[0],0,False); pn=pick(new,row[2],row[0],0,True)
        if pb!=pn: print(f.split('/')[-1], 'x'.join(map(str,row[0])), 'cuBLAS %.2f'%row[1], 'm%d %.2f -> m%d %.2f'%(pb,row[3][pb],pn,row[3][pn]), 'ratio %.3f -> %.3f'%(row[1]/row[3][pb], row[1]/row[3][pn]))
for f in sys.argv[1:]: detail(f)
