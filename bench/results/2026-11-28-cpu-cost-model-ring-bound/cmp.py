import re, subprocess, sys, os
sys.argv=[0]
exec(open('/tmp/fit/fit.py').read().split('g = lambda')[0])
R='/work/main/bench/results/2026-11-27-h100-gemm-offsector/mc4-misaligned.md'
rows=load(R)
inp=''.join('%s %s %s\n' % tuple(s.split('x')) for s,_,_ in rows)
def picks(lat, mode):
    out=subprocess.run(['/tmp/fit/est', str(lat), str(mode)], input=inp, capture_output=True, text=True).stdout.split('\n')
    res=[]
    for (s,cb,t),o in zip(rows,out):
        e=[float(x) for x in o.split()[1:]]
        p=min(range(len(e)), key=lambda i:e[i]); res.append((p, t[p], cb, e))
    return res
a=picks(0,1); b=picks(2500,1)
for (s,cb,t),x,y in zip(rows,a,b):
    if x[0]!=y[0]: print(s, 'cuBLAS %.1f'%cb, 'LAT0 m%d %.1f'%(x[0],x[1]), 'LAT2500 m%d %.1f'%(y[0],y[1]), 'best m%d %.1f'%(min(range(13),key=lambda i:t[i]), min(t)), 'est0', ' '.join('%.0f'%v for v in x[3]))
