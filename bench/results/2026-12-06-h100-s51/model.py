import math
cdiv=lambda a,b:-(-a//b)
# per mapping: U,V (tile rows, cols), W (K step), fma cycles/iter, A bytes/iter (issued share), B bytes, landed, epi cycles,
# kind: ('plain',), ('split',S,wgbytes_levels_owners, G), ('mc',S,T)
MAP=[
 (128,256,64,1024,16384,32768,0,256,('plain',)),
 (128,128,64,512,16384,16384,0,128,('plain',)),
 (128,64,128,512,32768,16384,0,64,('plain',)),
 (128,128,64,512,16384,16384,0,64,('split',2,32768,2)),
 (128,128,64,512,16384,16384,0,64,('split',4,65536,2)),
 (128,64,128,512,32768,16384,0,32,('split',4,32768,2)),
 (128,192,64,768,16384,24576,0,192,('plain',)),
 (192,128,64,768,24576,16384,0,192,('plain',)),
 (64,128,64,256,8192,16384,0,64,('plain',)),
 (192,192,64,1152,24576,24576,0,288,('plain',)),
 (128,256,64,1024,16384,16384,49152,256,('mc',2,1)),
 (128,192,64,768,16384,12288,40960,192,('mc',2,1)),
 (192,192,64,1152,24576,12288,49152,288,('mc',2,1)),
 (64,64,128,256,16384,16384,0,32,('split',4,32768,1)),
 (64,64,128,256,16384,16384,0,32,('plain',)),
 (48,128,64,192,6144,16384,0,48,('plain',)),
 (80,128,64,320,10240,16384,0,80,('plain',)),
 (112,128,64,448,14336,16384,0,112,('plain',)),
 (144,128,64,576,18432,16384,0,144,('plain',)),
 (176,128,64,704,22528,16384,0,176,('plain',)),
 (208,128,64,832,26624,16384,0,208,('plain',)),
 (240,128,64,960,30720,16384,0,240,('plain',)),
 (80,64,64,160,10240,8192,0,40,('plain',)),
 (64,128,64,256,4096,4096,24576,64,('mc',4,2)),
 (128,256,64,1024,16384,8192,49152,256,('mc',4,1)),
 (128,256,64,1024,8192,16384,49152,256,('mc',2,2)),
 (128,192,64,768,4096,12288,40960,192,('mc',2,4)),
 (208,128,64,832,7168,8192,45056,208,('mc',2,4)),
]
SLOTS={2:66,4:32,8:16}
def est(m,M,N,K,sms=132,P=None):
    P=P or {}
    tc=P.get('tile',500); fillr=P.get('fill',48); intake=P.get('intake',56); mct=P.get('mc_tile',3000)
    U,V,W,fma,ba,bb,landed,epi,kind=MAP[m]
    fa=1.4 if (K*2)%32 else 1.0; fb=1.4 if (N*2)%32 else 1.0
    g0=cdiv(M,U); g1=cdiv(N,V); blocks=g0*g1
    trips=cdiv(K,W)
    per=max(fma,(ba*fa+bb*fb)/fillr)
    if landed: per=max(per,landed/intake)
    per+=P.get('iter_over',0)
    tile=tc
    written=2*M*N/blocks/fillr
    if kind[0]=='split':
        S=kind[1]; G=2 if U==128 else 1
        tile+=cdiv(trips,S)*per+epi
        owners=cdiv(G,S)
        tile+=written*owners/G
        tile+=kind[2]/32+P.get('cluster_tile',8000)
        slots=SLOTS[S]
        return cdiv(blocks,slots)*tile + P.get('launch',0)
    tile+=trips*per+epi+written
    if kind[0]=='mc':
        S,T=kind[1],kind[2]
        tile+=mct
        mcb=cdiv(g0,S)*cdiv(g1,T)*S*T
        slots=SLOTS[S*T]*S*T
        return cdiv(mcb,slots)*tile + P.get('launch',0)
    return cdiv(blocks,sms)*tile + P.get('launch',0)
