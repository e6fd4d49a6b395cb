import sys; sys.path.insert(0,'bench/results/2026-12-06-h100-s51')
from parse import load
import model, math, numpy as np
model.SLOTS={2:66,4:30,8:15}
cdiv=model.cdiv
D="bench/results/2026-12-06-h100-s50/r9/"
sets={k:load(D+f) for k,f in [('listed','gm30-listed.md'),('s1125','gm30-sweep-20261125.md'),('s1206','gm30-sweep-20261206.md')]}
def feats(m,M,N,K,e):
    U,V,W,fma,ba,bb,landed,epi,kind=model.MAP[m]
    g0=cdiv(M,U); g1=cdiv(N,V); blocks=g0*g1; trips=cdiv(K,W)
    cl=1
    if kind[0]=='split':
        S=kind[1]; cl=S; waves=cdiv(blocks,model.SLOTS[S]); trips=cdiv(trips,S)
    elif kind[0]=='mc':
        S,T=kind[1],kind[2]; cl=S*T; mcb=cdiv(g0,S)*cdiv(g1,T)*S*T; waves=cdiv(mcb,model.SLOTS[cl]*cl)
    else: waves=cdiv(blocks,132)
    G=1 if U in (64,80) and V in (64,128) and kind[0]!='mc' and m in (8,13,14,22) else 2
    if m in (23,): G=1
    if m in (7,9,12): G=3
    return dict(est=e, wt=waves*trips, w=waves, wcl=waves*(cl>1), one=1.0, wt1=waves*trips*(G==1), split=waves*(kind[0]=='split'))
def rows_of(keys, names):
    X=[];y=[];meta=[]
    for k in keys:
        for s,cub,ms in sets[k]:
            M,N,K=map(int,s.split('x'))
            for m in range(28):
                f=feats(m,M,N,K,ms[m][1]); X.append([f[n] for n in names]); y.append(ms[m][0]); meta.append((k,s,m))
    return np.array(X),np.array(y),meta
def evaluate(keys,pred):
    out={}
    for k in keys:
        pb=[];pc=[];low=0
        for s,cub,ms in sets[k]:
            M,N,K=map(int,s.split('x'))
            p=min(range(28),key=lambda m:pred(m,M,N,K,ms[m][1])); b=min(range(28),key=lambda m:ms[m][0])
            pb.append(ms[b][0]/ms[p][0]); pc.append(cub/ms[p][0]); low+=cub/ms[p][0]<0.9
        g=lambda x: math.exp(sum(map(math.log,x))/len(x))
        out[k]='pick/best %.3f pick/cub %.3f (<0.9: %d)'%(g(pb),g(pc),low)
    return out
