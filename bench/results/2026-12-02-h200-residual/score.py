# Scores subsets of the 7 measured gemm_residual mappings offline: python3 score.py r1-gr-new.md gr7.est
# (gr7.est: estimates_gemm_residual.cu built as
#   nvcc -std=c++17 -O1 -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibuild-gpu/s30g/new/gemm_residual estimates_gemm_residual.cu -L/usr/local/cuda/lib64/stubs -lcuda
#  and run with a libcuda.so.1 symlink to the stub on LD_LIBRARY_PATH, shapes from r1-gr-new.md on stdin).
# The pick of a subset is its smallest estimate; its time is that mapping's measured time.
import re, math, itertools, sys
def bymap(path):
    d={}; sec=False
    for l in open(path):
        if l.startswith("## loom's mappings by index"): sec=True; continue
        if sec and re.match(r"\| \d+x\d+x\d+ ",l):
            c=[x.strip() for x in l.strip().strip('|').split('|')]
            d[c[0]]=[float(x) if re.match(r'^[0-9.]+$',x) else None for x in c[1:-1]]
    return d
def main(path):
    d={}
    for l in open(path):
        c=[x.strip() for x in l.strip().strip('|').split('|')]
        if len(c)>8 and re.match(r'^\d+x\d+x\d+$',c[0]) and c[1] in('listed','sweep'):
            d[c[0]]=(c[1],float(c[4]))
        if l.startswith("## loom's mappings"): break
    return d
b=bymap(sys.argv[1]); n=main(sys.argv[1])
est={l.split()[0]:list(map(float,l.split()[1:])) for l in open(sys.argv[2])}
g=lambda a: math.exp(sum(map(math.log,a))/len(a))
# check: argmin over all reproduces the measured pick time
mis=0
for s,v in b.items():
    e=est[s]; i=min(range(len(e)),key=lambda j:e[j])
    if abs(v[1+i]-v[0])/v[0]>0.03: mis+=1
print("shapes where argmin-est time differs >3% from the measured pick:", mis)
def score(S):
    out={}
    for grp in ('listed','sweep'):
        r=[]
        for s,v in b.items():
            if n[s][0]!=grp: continue
            e=est[s]; i=min(S,key=lambda j:e[j]); r.append(n[s][1]/v[1+i])
        out[grp]=(g(r),min(r))
    return out
N=len(next(iter(est.values())))
res=[]
for k in range(1,N+1):
    for S in itertools.combinations(range(N),k):
        if 0 not in S: continue
        sc=score(S); res.append((sc['sweep'][0],sc['listed'][0],S,sc))
res.sort(reverse=True)
for r in res[:12]: print(r[2], "sweep %.3f (min %.3f) listed %.3f (min %.3f)"%(r[3]['sweep'][0],r[3]['sweep'][1],r[3]['listed'][0],r[3]['listed'][1]))
print("all:", score(tuple(range(N))))
best_sweep=g([n[s][1]/min(x for x in v[1:] if x) for s,v in b.items() if n[s][0]=='sweep'])
print("best per shape sweep %.3f"%best_sweep)
