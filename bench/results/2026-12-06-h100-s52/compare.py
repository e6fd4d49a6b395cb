import re,sys,math,collections
def load(f):
    hdr=None; res={}
    for l in open(f):
        if l.startswith("| shape"): hdr=[x.strip() for x in l.split("|")[1:-1]]; continue
        if hdr and re.match(r"\| \d",l):
            c=[x.strip() for x in l.split("|")[1:-1]]
            d={"cub":float(c[1])}
            for h,v in zip(hdr,c):
                m=re.match(r"m(\d+) µs",h)
                if m and v and v[0].isdigit(): d[int(m.group(1))]=float(v.split()[0])
            res[c[0]]=d
    return res
D=sys.argv[1]; vs=sys.argv[2].split(","); rounds=sys.argv[3].split(",")
data={v:[load(f"{D}/{v}-{r}.md") for r in rounds] for v in vs}
shapes=list(data[vs[0]][0].keys())
maps=[k for k in data[vs[0]][0][shapes[0]] if k!="cub"]
base=vs[0]
for v in vs[1:]:
    print("==",v,"/",base,"(time ratio base/v: >1 = v faster), per round mean")
    allr=collections.defaultdict(list)
    for s in shapes:
        row=[]
        for m in maps+["cub"]:
            rs=[data[base][i][s][m]/data[v][i][s][m] for i in range(len(rounds)) if m in data[v][i][s] and m in data[base][i][s]]
            g=math.exp(sum(map(math.log,rs))/len(rs)); allr[m].append(g); row.append(f"{m}:{g:.3f}")
        print(s.ljust(16)," ".join(row))
    print("geo".ljust(16)," ".join(f"{m}:{math.exp(sum(map(math.log,x))/len(x)):.3f}" for m,x in allr.items()))
print("== best loom / cuBLAS per variant")
for v in vs:
    out=[]
    for s in shapes:
        rr=[]
        for i in range(len(rounds)):
            d=data[v][i][s]; rr.append(d["cub"]/min(d[m] for m in maps if m in d))
        out.append(sum(rr)/len(rr))
    print(v, " ".join(f"{x:.3f}" for x in out), "geo %.3f"%math.exp(sum(map(math.log,out))/len(out)))
