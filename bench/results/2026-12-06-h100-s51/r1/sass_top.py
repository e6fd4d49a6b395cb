import csv,sys
fn=sys.argv[1]; top=int(sys.argv[2]) if len(sys.argv)>2 else 40
rows=list(csv.reader(open(fn)))
hdr=rows[1]; data=rows[2:]
i_src=hdr.index('Source'); i_s=hdr.index('Warp Stall Sampling (All Samples)'); i_ni=hdr.index('Warp Stall Sampling (Not-issued Samples)'); i_ex=hdr.index('Instructions Executed')
stalls=[h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
tot=sum(int(r[i_s] or 0) for r in data)
print('total samples',tot,'instructions',len(data))
agg={}
for r in data:
    for s in stalls:
        agg[s]=agg.get(s,0)+int(r[hdr.index(s)] or 0)
print(sorted(((v,k) for k,v in agg.items()),reverse=True)[:10])
idx=sorted(range(len(data)),key=lambda i:-int(data[i][i_s] or 0))[:top]
for i in sorted(idx):
    r=data[i]
    top3=sorted(((int(r[hdr.index(s)] or 0),s[6:]) for s in stalls),reverse=True)[:3]
    print('%5d %6s %8s  %-60s %s'%(i,r[i_s],r[i_ex],r[i_src].strip()[:60],' '.join('%s:%d'%(b,a) for a,b in top3 if a)))
