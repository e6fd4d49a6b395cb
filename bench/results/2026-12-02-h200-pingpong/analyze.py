#!/usr/bin/env python3
"""What a cost model would pick, scored on measured times: analyze.py TABLE.md ESTIMATES [--only 0,1,..]
TABLE.md: a fused_bench.py --by-mapping table (gemm_bias_act; peer = cuBLASLt's epilogue) or a
bench/gemm_mappings.cu table (peer = cuBLAS); ESTIMATES: estimates.cu's output for the same shapes.
--only: the mappings the launcher would hold (default all). Prints pick / peer, best / peer and
pick / best geomeans per group, and the shapes where the pick is more than 5% slower than the best."""
import math, re, sys

def gm(v):
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float('nan')

path, est_path = sys.argv[1], sys.argv[2]
only = None
if '--only' in sys.argv:
    only = [int(x) for x in sys.argv[sys.argv.index('--only') + 1].split(',')]
est = {}
for line in open(est_path):
    p = line.split()
    if p:
        est[p[0]] = [float(x) for x in p[1:]]
rows = [[x.strip() for x in r.split('|')] for r in open(path).read().split('\n')]
shape = re.compile(r'^\d+x\d+x\d+$')
meas, peer, group = {}, {}, {}
if any(len(c) > 3 and c[1] == 'shape' and 'cuBLAS µs' in c[2] for c in rows):  # gemm_mappings table
    for c in rows:
        if len(c) > 4 and shape.match(c[1]):
            peer[c[1]] = float(c[2])
            group[c[1]] = 'all'
            meas[c[1]] = [float(x.split()[0]) if x not in ('n/a', '-') else 1e30 for x in c[3:3 + len(est.get(c[1], []))]]
else:  # fused_bench.py
    for c in rows:
        if len(c) > 8 and shape.match(c[1]) and c[2] in ('listed', 'sweep'):
            peer[c[1]], group[c[1]] = float(c[5]), c[2]
    for c in rows:
        if len(c) > 10 and shape.match(c[1]) and c[2] not in ('listed', 'sweep'):
            meas[c[1]] = [float(x) if x != 'n/a' else 1e30 for x in c[3:-2]]
for g in sorted(set(group.values())):
    pick, best, pb, bad = [], [], [], []
    for s in meas:
        if group.get(s) != g or s not in est:
            continue
        idx = only if only is not None else list(range(len(est[s])))
        t, e = meas[s], est[s]
        p = min(idx, key=lambda i: e[i])
        b = min(idx, key=lambda i: t[i])
        pick.append(peer[s] / t[p]); best.append(peer[s] / t[b]); pb.append(t[b] / t[p])
        if t[p] > 1.05 * t[b]:
            bad.append('%s: m%d %.4g vs m%d %.4g' % (s, p, t[p], b, t[b]))
    print('%s (%d shapes): pick/peer %.3f (min %.3f), best/peer %.3f, pick/best %.3f' % (g, len(pick), gm(pick), min(pick), gm(best), gm(pb)))
    for x in bad:
        print('   pick > 1.05 best:', x)
