#!/usr/bin/env python3
"""analyze.py NOLD NALL TABLE...: per bench/gemm_mappings.cu table (NALL mappings: examples/gemm's NOLD and candidates
after them): best and pick (smallest estimate) over the old set and over all, shapes below 0.90x cuBLAS, and the shapes
where a candidate is fastest by 2% or more."""
import math, re, sys
g = lambda a: math.exp(sum(map(math.log, a)) / len(a))
nold, nall = int(sys.argv[1]), int(sys.argv[2])
for path in sys.argv[3:]:
    rows = []
    for l in open(path):
        c = [x.strip() for x in l.strip().strip('|').split('|')]
        if len(c) > nall + 2 and re.match(r'^\d+x\d+x\d+$', c[0]):
            cub = float(c[1]); t = []; e = []
            for x in c[2:2 + nall]:
                m = re.match(r'([0-9.]+) \(([0-9.]+)\)', x)
                t.append(float(m.group(1)) if m else None); e.append(float(m.group(2)) if m else None)
            rows.append((c[0], cub, t, e))
    old = list(range(nold)); new = list(range(nall))
    def best(S, t): return min(t[i] for i in S if t[i])
    def pick(S, t, e): return t[min((i for i in S if e[i] is not None), key=lambda i: e[i])]
    print(f"== {path}: {len(rows)} shapes")
    for name, S in ((f"{nold} mappings", old), (f"{nall} mappings", new)):
        b = [cub / best(S, t) for _, cub, t, _ in rows]; p = [cub / pick(S, t, e) for _, cub, t, e in rows]
        lo = [s for (s, cub, t, _), x in zip(rows, b) if x < 0.9]
        print(f"  {name}: best/cuBLAS {g(b):.3f} (below 0.90: {len(lo)}: {' '.join(lo)}), pick/cuBLAS {g(p):.3f} (below 0.90: {sum(x < 0.9 for x in p)})")
    for s, cub, t, e in rows:
        bo = best(old, t); bn = best(new, t)
        if bn < bo * 0.98:
            i = min(new, key=lambda i: t[i] if t[i] else 9e9)
            io = min(old, key=lambda i: t[i] if t[i] else 9e9)
            print(f"  {s:16s} cuBLAS {cub:7.2f}  best of {nold} m{io} {bo:7.2f}  m{i} {t[i]:7.2f} (est {e[i]:.1f}, m{io} est {e[io]:.1f})  ratio {cub/bo:.3f} -> {cub/bn:.3f}")
