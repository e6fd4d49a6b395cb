import re,sys,math
def load(f):
    r={}
    for l in open(f):
        m=re.match(r"\| (\d+x\d+x\d+) \| (listed|sweep) \| ([\d.]+) \|",l)
        if m: r[m.group(1)]=float(m.group(3))
    return r
a=load(sys.argv[1]); b=load(sys.argv[2])
rs={s:a[s]/b[s] for s in a if s in b}
g=math.exp(sum(map(math.log,rs.values()))/len(rs))
print("old/new loom time geomean %.3f over %d (>1: new faster)"%(g,len(rs)))
for s,v in sorted(rs.items(),key=lambda x:x[1]):
    if abs(v-1)>0.03: print("  ",s,"%.3f"%v, a[s], b[s])
