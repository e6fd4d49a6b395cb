# examples/gemm's pick replayed over its 28 mappings and with gemm_alt.loom.part's two (m28: 128 x 128, m29: 128 x 192,
# two teams of one warpgroup a tile) from bench/gemm_mappings.cu tables (times and printed estimates, one run).
import re, sys, math
def load(f, n=30):
    d = {}
    for line in open(f):
        if not line.startswith('| '): continue
        c = [x.strip() for x in line.strip().strip('|').split('|')]
        if not re.match(r'\d+x\d+x\d+$', c[0]): continue
        ts, es = [], []
        for x in c[2:2 + n]:
            m = re.match(r'([\d.]+) \(([\d.]+)\)', x); ts.append(float(m.group(1))); es.append(float(m.group(2)))
        d[c[0]] = (float(c[1]), ts, es)
    return d
geo = lambda v: math.exp(sum(map(math.log, v)) / len(v))
for f in sys.argv[1:]:
    d = load(f)
    for name, S in [('28', list(range(28))), ('28+m28', list(range(29))), ('28+m29', list(range(28)) + [29]), ('30', list(range(30)))]:
        r, rb, below, moved = [], [], 0, []
        for k, (cub, ts, es) in d.items():
            p = min(S, key=lambda i: (es[i], i)); p28 = min(range(28), key=lambda i: (es[i], i))
            if p != p28: moved.append('%s m%d %.2f -> m%d %.2f (%+.1f%%)' % (k, p28, ts[p28], p, ts[p], 100 * (ts[p28] / ts[p] - 1)))
            r.append(cub / ts[p]); rb.append(cub / min(ts[i] for i in S)); below += cub / ts[p] < 0.9
        print('%s %-7s pick/cuBLAS %.3f (min %.3f, %d below 0.90), best/cuBLAS %.3f' % (f.split('/')[-1], name, geo(r), min(r), below, geo(rb)))
        if name != '28' and name != '30':
            for m in moved: print('      ', m)
