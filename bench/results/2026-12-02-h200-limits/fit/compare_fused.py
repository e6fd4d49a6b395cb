#!/usr/bin/env python3
"""compare_fused.py CASE NMAP OLD_EST NEW_EST [r3-fused.md]: the pick of two builds' estimate_cycles (host binaries of
est_gemm_bias_act.cu / est_add_gemm.cu, one compiled from the committed loom's output, one with cost-model-terms.patch)
on the shapes of fused_bench.py's by-mapping table, scored against the measured times: pick / best (geomean)."""
import math, re, subprocess, sys
case, n, old, new = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
md = sys.argv[5] if len(sys.argv) > 5 else 'r3-fused.md'
lines = open(md).read().split('\n')
start = [i for i, l in enumerate(lines) if l.startswith('| ' + case + ' | pick')][0]
rows = []
for l in lines[start + 2:]:
    c = [x.strip() for x in l.strip().strip('|').split('|')]
    if len(c) < 4 or not re.match(r'^\d+x\d+x\d+$', c[0]): break
    rows.append((c[0], [float(x) for x in c[2:2 + n]]))
inp = '\n'.join(' '.join(s.split('x')) for s, _ in rows) + '\n'
ests = lambda b: [list(map(float, l.split()[1:])) for l in subprocess.run([b], input=inp, capture_output=True, text=True).stdout.split('\n') if l]
g = lambda a: math.exp(sum(map(math.log, a)) / len(a))
for name, e in (('old', ests(old)), ('new', ests(new))):
    print(name, 'pick / best', round(g([t[x.index(min(x))] / min(t) for (_, t), x in zip(rows, e)]), 4), 'over', len(rows), 'shapes')
