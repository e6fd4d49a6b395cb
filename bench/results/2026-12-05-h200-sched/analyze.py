#!/usr/bin/env python3
# Ratios of the attention tables of this folder (S >= 1k, non-causal): geomean / min / max per D.
import math, re, sys
H = sys.argv[1] if len(sys.argv) > 1 else 'bench/results/2026-12-05-h200-sched'
def table(f):
    head, rows = None, []
    for l in open(f'{H}/{f}'):
        c = [x.strip() for x in l.strip().strip('|').split('|')]
        if l.startswith('| D |'): head = c
        elif re.match(r'^\| (64|128|256) \| no', l): rows.append(dict(zip(head, c)))
    return rows
def ratio(rows, a, b):
    v = [float(r[a]) / float(r[b]) for r in rows]
    return '%.3f (min %.3f, max %.3f)' % (math.exp(sum(map(math.log, v)) / len(v)), min(v), max(v))
for f in sys.argv[2:] or ['r2-attention.md', 'r3-attention.md', 'r4-attention.md']:
    try: R = table(f)
    except FileNotFoundError: continue
    cols = [k for k in R[0] if k.startswith('loom') and k.endswith('TFLOP/s')]
    for D in sorted({r['D'] for r in R}, key=int):
        sel = [r for r in R if r['D'] == D and int(r['S']) >= 1024]
        out = []
        for a, b in [('loom fa2_opt', 'loom FA3'), ('loom fa2_opt', 'loom FA2'), ('loom fa3_pp', 'loom FA3'), ('loom fa3_pp', 'loom FA2')]:
            if a + ' TFLOP/s' in cols and b + ' TFLOP/s' in cols and all(re.match(r'^[0-9.]+$', r[b + ' TFLOP/s']) for r in sel):
                out.append(f'{a[5:]}/{b[5:]} {ratio(sel, a + " TFLOP/s", b + " TFLOP/s")}')
        print(f, 'D =', D, '; '.join(out))
