import re,sys,math
def load(f):
    d={}
    for line in open(f):
        if not line.startswith('| '): continue
        c=[x.strip() for x in line.strip().strip('|').split('|')]
        if not re.match(r'\d+x\d+x\d+$',c[0]): continue
        ts=[];es=[]
        for x in c[2:34]:
            m=re.match(r'([\d.]+) \(([\d.]+)\)',x); ts.append(float(m.group(1))); es.append(float(m.group(2)))
        d[c[0]]=(float(c[1]),ts,es,c[35])
    return d
def geo(v): return math.exp(sum(map(math.log,v))/len(v))
for f in sys.argv[1:]:
    d=load(f)
    for name,S in [('27',list(range(27))),('27+m28',list(range(27))+[28]),('27+all5',list(range(32)))]:
        r=[];rb=[];below=0;changed=[]
        for k,(cub,ts,es,pick) in d.items():
            p=min(S,key=lambda i:(es[i],i)); b=min(ts[i] for i in S)
            p27=min(range(27),key=lambda i:(es[i],i))
            if p!=p27: changed.append(f"{k}: m{p27} {ts[p27]:.1f} -> m{p} {ts[p]:.1f}")
            r.append(cub/ts[p]); rb.append(cub/b); below+= cub/ts[p]<0.9
        print(f"{f} {name}: pick/cuBLAS {geo(r):.3f} min {min(r):.3f} below0.9 {below}; best/cuBLAS {geo(rb):.3f} min {min(rb):.3f}")
        for c in changed: print("   ",c)
