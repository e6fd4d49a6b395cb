#!/usr/bin/env python3
"""stall_summary.py SRC.csv: the SASS instructions with the most warp-state samples per kernel, from
`ncu --page source --csv --print-source sass` (one table per profiled kernel). For each kernel: the
total samples and the top 25 instructions with their share and every non-zero sample column."""
import csv, io, sys

text = open(sys.argv[1], errors='replace').read().splitlines()
tables, cur, title = [], None, ''
for line in text:
    if line.startswith('"Address"') or line.startswith('"#"') or ('"Source"' in line and '"Address"' in line):
        cur = {'title': title, 'header': next(csv.reader([line])), 'rows': []}
        tables.append(cur)
        continue
    if cur is not None and line.startswith('"'):
        try:
            cur['rows'].append(next(csv.reader([line])))
            continue
        except Exception:
            pass
    if line.strip():
        title = line.strip()
        cur = None
for t in tables:
    h = t['header']
    samp = next((i for i, c in enumerate(h) if 'Sampling (All' in c), None)
    src = next((i for i, c in enumerate(h) if c == 'Source'), 1)
    if samp is None:
        print('no sampling column in', h[:12]); continue
    def num(x):
        try: return float(x.replace(',', ''))
        except Exception: return 0.0
    rows = [r for r in t['rows'] if len(r) == len(h)]
    total = sum(num(r[samp]) for r in rows)
    print('== kernel table after:', t['title'][:160])
    print('   instructions %d, samples %d' % (len(rows), total))
    for r in sorted(rows, key=lambda r: -num(r[samp]))[:25]:
        extra = ['%s=%s' % (h[i], r[i]) for i in range(len(h)) if i not in (samp, src) and 'stall' in h[i].lower() and num(r[i]) > 0]
        print('   %5.1f%%  %-60s %s' % (100 * num(r[samp]) / max(total, 1), r[src][:60], ' '.join(extra)[:300]))
