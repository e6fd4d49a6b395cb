#!/usr/bin/env python3
"""Summarizes an `ncu --page source --csv --print-source sass` export (SourceCounters): warp-stall
samples by reason and the instructions with the most samples.
Usage: stalls.py SOURCE.csv [TOP]"""
import collections
import csv
import sys


def num(x):
    try:
        return float(x.replace(',', ''))
    except ValueError:
        return 0.0


rows = list(csv.reader(open(sys.argv[1])))
top_n = int(sys.argv[2]) if len(sys.argv) > 2 else 20
print(rows[0][1] if len(rows[0]) > 1 else '')
h, data = rows[1], rows[2:]
ix = {c: i for i, c in enumerate(h)}
reasons = [c for c in h if c.startswith('stall_') and 'Not Issued' not in c]
col = ix['Warp Stall Sampling (All Samples)']
tot = sum(num(r[col]) for r in data)
print(f'{len(data)} instructions, {tot:.0f} samples')
agg = collections.Counter()
for r in data:
    for c in reasons:
        agg[c] += num(r[ix[c]])
print('by reason: ' + ', '.join(f'{k[6:]} {v / tot * 100:.1f}%' for k, v in agg.most_common(10)))
for r in sorted(data, key=lambda r: -num(r[col]))[:top_n]:
    rs = sorted(((num(r[ix[c]]), c[6:]) for c in reasons), reverse=True)[:3]
    print(f"{num(r[col]) / tot * 100:5.1f}%  {r[ix['Source']][:64]:64s} " + ', '.join(f'{n} {int(v)}' for v, n in rs if v))
