#!/usr/bin/env python3
"""analyze.py TABLE...: for each bench/gemm_mappings.cu table of r1.sh (20 mappings: examples/gemm's 15 and
candidates.sh's 15-19), the best measured mapping per shape with and without the candidates, the pick among
the 15 (smallest estimate), the shapes below 0.90x cuBLAS, and where the candidates are fastest."""
import math, re, sys
g = lambda a: math.exp(sum(map(math.log, a)) / len(a))
for path in sys.argv[1:]:
    rows = []
    for l in open(path):
        c = [x.strip() for x in l.strip().strip('|').split('|')]
        if len(c) > 22 and re.match(r'^\d+x\d+x\d+$', c[0]):
            cub = float(c[1]); t = []; e = []
            for x in c[2:22]:
                m = re.match(r'([0-9.]+) \(([0-9.]+)\)', x)
                t.append(float(m.group(1)) if m else None); e.append(float(m.group(2)) if m else None)
            rows.append((c[0], cub, t, e))
    old = list(range(15)); new = list(range(20))
    def best(S, t): return min(t[i] for i in S if t[i])
    def pick(S, t, e): return t[min((i for i in S if e[i] is not None), key=lambda i: e[i])]
    print(f"== {path}: {len(rows)} shapes")
    for name, S in (("15 mappings", old), ("20 mappings", new)):
        b = [cub / best(S, t) for _, cub, t, _ in rows]; p = [cub / pick(S, t, e) for _, cub, t, e in rows]
        print(f"  {name}: best/cuBLAS {g(b):.3f} (below 0.90: {sum(x < 0.9 for x in b)}), pick/cuBLAS {g(p):.3f} (below 0.90: {sum(x < 0.9 for x in p)})")
    for s, cub, t, e in rows:
        bo = best(old, t); bn = best(new, t)
        if bn < bo * 0.98:
            i = min(new, key=lambda i: t[i] if t[i] else 9e9)
            print(f"  {s:16s} cuBLAS {cub:7.2f}  best of 15 {bo:7.2f}  m{i} {t[i]:7.2f} (est {e[i]:.1f}; m15-19: " +
                  " ".join(f"{t[j]:.2f} ({e[j]:.1f})" for j in (15, 16, 17, 18, 19)) + f")  ratio {cub/bo:.3f} -> {cub/bn:.3f}")
