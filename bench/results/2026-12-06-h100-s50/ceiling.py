# The pick against the best of gemm_bias_act's 19 mappings, each against cuBLASLt's bias + GELU epilogue,
# from gba-bymap.md (r2): how much a perfect launcher rule would gain on these shapes.
import re, math, sys
from collections import Counter
f = sys.argv[1] if len(sys.argv) > 1 else 'bench/results/2026-12-06-h100-s50/gba-bymap.md'
rows, lt = {}, {}
for line in open(f):
    c = [x.strip() for x in line.strip().strip('|').split('|')]
    if not (line.startswith('| ') and re.match(r'\d+x\d+x\d+$', c[0])): continue
    if len(c) == 11: lt[c[0]] = (c[1], float(c[4]))
    elif len(c) > 20: rows[c[0]] = (float(c[1]), [None if x in ('n/a', '-') else float(x) for x in c[2:-1]], c[-1])
geo = lambda v: math.exp(sum(map(math.log, v)) / len(v))
for grp in ['listed', 'sweep']:
    pk, bs = [], []
    for k, (g, cl) in lt.items():
        if g != grp or k not in rows: continue
        p, ts, b = rows[k]; best = min(t for t in ts if t)
        pk.append(cl / p); bs.append(cl / best)
    print('%s (%d shapes): pick / cuBLASLt %.3f, best / cuBLASLt %.3f (min %.3f), shapes where best < 0.95: %d'
          % (grp, len(pk), 1 / geo([1 / x for x in pk]) if 0 else geo(pk), geo(bs), min(bs), sum(x < 0.95 for x in bs)))
print('fastest mapping, how often:', dict(Counter(r[2] for r in rows.values()).most_common()))
for k, (g, cl) in lt.items():
    if k in rows:
        p, ts, b = rows[k]; best = min(t for t in ts if t)
        print('%-16s %-6s cuBLASLt/pick %.3f cuBLASLt/best %.3f best %-4s pick/best %.3f' % (k, g, cl / p, cl / best, b, p / best))
