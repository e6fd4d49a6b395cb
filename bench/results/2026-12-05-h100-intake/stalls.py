#!/usr/bin/env python3
"""stalls.py NAME-sass.csv...: from `ncu -i REP --page source --csv --print-source sass`: the warp stall samples of
a kernel by reason, and its twelve instructions with the most samples (executions, share, top two reasons)."""
import csv,sys
for fn in sys.argv[1:]:
    rows=list(csv.reader(open(fn)))
    hdr=rows[1]; data=rows[2:]
    iS=hdr.index("Warp Stall Sampling (All Samples)"); iE=hdr.index("Instructions Executed")
    stall=[i for i,h in enumerate(hdr) if h.startswith("stall_") and "Not Issued" not in h]
    tot=sum(float(r[iS] or 0) for r in data if len(r)>iS)
    print("==",fn,"total samples",tot)
    agg={}
    for r in data:
        if len(r)<=iS: continue
        for i in stall: agg[hdr[i]]=agg.get(hdr[i],0)+float(r[i] or 0)
    print("  by reason:", ", ".join(f"{k[6:]} {v/tot*100:.1f}%" for k,v in sorted(agg.items(),key=lambda x:-x[1])[:8]))
    top=sorted(data,key=lambda r:-float(r[iS] or 0) if len(r)>iS else 0)[:12]
    for r in top:
        rs=sorted(((float(r[i] or 0),hdr[i][6:]) for i in stall),reverse=True)[:2]
        print(f"  {float(r[iS])/tot*100:5.1f}% exec {r[iE]:>8} {r[1].strip()[:70]:70s} {rs}")
