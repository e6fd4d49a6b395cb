#!/usr/bin/env python3
"""analyze3.py r3-gba.md: gemm_bias_act (GELU) against cuBLASLt's epilogue, best measured mapping per shape among
the 13 committed mappings and among all 21 (with the eight transposed tiles, 13-20), per group; and the shapes
where a transposed tile is fastest by 2% or more."""
import math, re, sys
g = lambda a: math.exp(sum(map(math.log, a)) / len(a))
rows = [[x.strip() for x in r.split('|')] for r in open(sys.argv[1]).read().split('\n')]
shape = re.compile(r'^\d+x\d+x\d+$')
peer, group, meas = {}, {}, {}
for c in rows:
    if len(c) > 8 and shape.match(c[1]) and c[2] in ('listed', 'sweep'):
        peer[c[1]], group[c[1]] = float(c[5]), c[2]
for c in rows:
    if len(c) > 20 and shape.match(c[1]) and c[2] not in ('listed', 'sweep'):
        meas[c[1]] = [float(x) if x != "n/a" else 1e30 for x in c[3:24]]
for gr in ('listed', 'sweep'):
    S = [s for s in meas if group.get(s) == gr]
    for name, n in (('13 mappings', 13), ('21 mappings', 21)):
        b = [peer[s] / min(meas[s][:n]) for s in S]
        print(f"{gr}: {name}: best / cuBLASLt geomean {g(b):.3f}, min {min(b):.3f}, below 0.90: {sum(x < 0.9 for x in b)} of {len(b)}")
for s in meas:
    b13, b21 = min(meas[s][:13]), min(meas[s])
    if b21 < 0.98 * b13:
        i = meas[s].index(b21)
        print(f"  {s:16s} cuBLASLt {peer[s]:.4f}  best of 13 {b13:.4f}  m{i} {b21:.4f}  ratio {peer[s]/b13:.3f} -> {peer[s]/b21:.3f}")
