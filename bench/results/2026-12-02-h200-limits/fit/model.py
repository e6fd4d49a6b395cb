"""model.py: examples/gemm's 23 mappings' cost estimate (src/codegen/estimate.cpp) re-implemented in Python, to fit
CostModel parameters offline against bench/gemm_mappings.cu tables (every mapping timed beside its estimate).
est(i, M, N, K, P): mapping i's estimate in microseconds at 1.98 GHz, P the parameters: fill (fill_bytes_per_cycle),
fma, tile, slotsS (cluster slots of S-block clusters; 30 for S = 4 on the H200), beta (1 - full_load_clock_percent
/ 100), lat (ring_refill_cycles), cxx (busy as the generated code counts it); agg, iter and smem are terms that were
tried and not adopted (an aggregate fill cap, a fixed cost per iteration, the wgmma's shared-memory reads).
With P = {'slots4': 30} it reproduces the printed estimates of the tables before this round (all 23 mappings,
88 shapes, within the tables' 0.1 us rounding); est.cu checks the C++ estimate against P's current values."""
import re, math, glob
CLK=1.980
# name: (TM, TN, W, G, NMMA, S_split, multicast)
MAPS=[(128,256,64,2,256,1,1),(128,128,64,2,128,1,1),(128,64,128,2,64,1,1),(128,128,64,2,128,2,1),(128,128,64,2,128,4,1),
(128,64,128,2,64,4,1),(128,192,64,2,192,1,1),(192,128,64,3,128,1,1),(64,128,64,1,128,1,1),(192,192,64,3,192,1,1),
(128,256,64,2,256,1,2),(128,192,64,2,192,1,2),(192,192,64,3,192,1,2),(64,64,128,1,64,4,1),(64,64,128,1,64,1,1)]
for U in (48,80,112,144,176,208,240): MAPS.append((U,128,64,2,U,1,1))
MAPS.append((80,64,64,1,80,1,1))
TRANS=set(range(15,23))
STAGES=[3,4,4,4,4,3,4,4,8,3,4,4,4,4,6,8,6,6,5,4,3,3,8]
def cdiv(a,b): return -(-a//b)
def est(i,M,N,K,P=None,sms=132):
    P=P or {}
    TM,TN,W,G,NM,S,MC=MAPS[i]
    fill_rate=P.get('fill',48); fma_rate=P.get('fma',2048); tc=P.get('tile',500)
    ldA=cdiv(K,8)*8; ldB=cdiv(N,8)*8
    fA=1.4 if (ldA*2)%32 else 1.0; fB=1.4 if (ldB*2)%32 else 1.0
    tm,tn=cdiv(M,TM),cdiv(N,TN); tiles=tm*tn; trips=cdiv(K,W)
    fma=TM*TN*W; bA=TM*W*2; bB=TN*W*2
    landed=bA+bB
    if MC>1: bB=bB/MC
    if S>1: active=min(tiles, P.get('slots%d'%S, sms//S))*S
    elif MC>1: active=min(tn*cdiv(tm,2)*2, sms)
    else: active=min(tiles,sms)
    fr=min(fill_rate, P['agg']/active) if 'agg' in P else fill_rate
    fill=(bA*fA+bB*fB)/fr
    beta=P.get('beta',0.0)
    busy=min(1.0, tiles*S/sms) if P.get('cxx') else min(active,sms)/sms
    it=max(fma/fma_rate/(1-beta*busy), fill)
    if MC>1: it=max(it, landed/56)
    it+=P.get('iter',0)
    if 'lat' in P: it=max(it, P['lat']/(STAGES[i]-1))
    if 'smem' in P:  # smem read bandwidth of wgmma + TMA writes
        if i in TRANS: rd=G*(64*W*2*(TN//G//64) + NM*W*2)   # A operand = B tile rows per wg
        else: rd=G*(64*W*2 + NM*W*2)
        it=max(it,(rd+landed)/P['smem'])
    tile=tc+TM*TN/128.0
    if S>1:
        tile+=cdiv(trips,S)*it
        owners=cdiv(G,S)
        tile+=M*N*2/tiles/fill_rate*owners/G
        levels=math.ceil(math.log2(S))
        tile+=levels*owners*(64*NM*4)/32+8000
        slots=P.get('slots%d'%S, sms//S)
        return cdiv(tiles,slots)*tile/(CLK*1e3)
    tile+=trips*it+M*N*2/tiles/fill_rate
    if MC>1:
        tile+=3000
        mcb=tn*cdiv(tm,2)*2 if True else 0
        return cdiv(mcb,sms)*tile/(CLK*1e3)
    return cdiv(tiles,sms)*tile/(CLK*1e3)
def load(paths):
    rows=[]
    for p in paths:
        for l in open(p):
            c=[x.strip() for x in l.strip().strip('|').split('|')]
            if not re.match(r'^\d+x\d+x\d+$',c[0]): continue
            cub=float(c[1]); t=[];e=[]
            for x in c[2:2+23]:
                m=re.match(r'([0-9.]+) \(([0-9.]+)\)',x); t.append(float(m.group(1)) if m else None); e.append(float(m.group(2)) if m else None)
            M,N,K=map(int,c[0].split('x'))
            rows.append((c[0],M,N,K,cub,t,e))
    return rows
