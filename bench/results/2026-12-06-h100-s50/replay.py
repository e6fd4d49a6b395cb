# The launcher's pick replayed over subsets of gemm_bias_act's mappings: every mapping's time (a by-mapping table of
# fused_bench.py) and the cost model's estimate of every mapping on the same GPU (est.cu's output), against
# cuBLASLt's bias + GELU epilogue measured in the same run. Usage: replay.py BYMAP.md EST.txt
import re, math, sys
table, estf = sys.argv[1], sys.argv[2]
rows, lt, est = {}, {}, {}
for line in open(table):
    c = [x.strip() for x in line.strip().strip('|').split('|')]
    if not (line.startswith('| ') and re.match(r'\d+x\d+x\d+$', c[0])): continue
    if len(c) == 11: lt[c[0]] = (c[1], float(c[4]))
    elif len(c) > 20: rows[c[0]] = (float(c[1]), [float(x) for x in c[2:-1]])
for line in open(estf):
    p = line.split(); est[p[0]] = [tuple(map(float, x.split('/'))) for x in p[1:]]
geo = lambda v: math.exp(sum(map(math.log, v)) / len(v))
n = len(next(iter(rows.values()))[1])
ok = sum(abs(ts[min(range(n), key=lambda i: (est[k][i][0], est[k][i][1], i))] - p) / p < 0.02 for k, (p, ts) in rows.items())
print('replayed pick of all %d within 2%% of the measured pick: %d of %d shapes' % (n, ok, len(rows)))
for name, S in [('committed 19', list(range(19))), ('19 + m19', list(range(20))), ('19 + m19 + m22', list(range(20)) + [22]), ('all %d' % n, list(range(n)))]:
    res, moved = {}, []
    for grp in ['listed', 'sweep']:
        r, b = [], []
        for k, (g, cl) in lt.items():
            if g != grp: continue
            p, ts = rows[k]
            pk = min(S, key=lambda i: (est[k][i][0], est[k][i][1], i))
            p19 = min(range(19), key=lambda i: (est[k][i][0], est[k][i][1], i))
            if pk != p19: moved.append('%s m%d %.4f -> m%d %.4f ms (%+.1f%%)' % (k, p19, ts[p19], pk, ts[pk], 100 * (ts[p19] / ts[pk] - 1)))
            r.append(cl / ts[pk]); b.append(cl / min(ts[i] for i in S))
        res[grp] = 'pick %.3f (min %.3f), best %.3f' % (geo(r), min(r), geo(b))
    print('%-16s listed: %s; sweep: %s' % (name, res['listed'], res['sweep']))
    if name.startswith('19 + m19') and len(S) == 20:
        for m in moved: print('    ', m)
