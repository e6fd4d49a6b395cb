#!/usr/bin/env python3
"""Ratios of the double-buffered kernels to the plain ones, from the attention tables of r1 and r3 (same process each)."""
import math, re, sys, os
here = os.path.dirname(os.path.abspath(__file__))
def rows(name):
    lines = [l for l in open(os.path.join(here, name)) if l.startswith('| ') and not l.startswith('| D ')]
    hdr = [l for l in open(os.path.join(here, name)) if l.startswith('| D ')][0].split('|')
    col = {h.strip(): i for i, h in enumerate(hdr)}
    for l in lines:
        c = l.split('|')
        if not c[1].strip().isdigit(): continue
        yield int(c[1]), int(c[3]), {k: c[i].strip() for k, i in col.items()}
def gm(v): return math.exp(sum(map(math.log, v)) / len(v))
for name, pairs in (('r1-attention.md', [('loom fa2_db', 'loom FA2'), ('loom fa3_db', 'loom FA3')]),
                    ('r3-attention.md', [('loom fa2_db', 'loom FA2')])):
    for a, b in pairs:
        for D in (64, 128):
            pts = [(S, float(r[a + ' TFLOP/s']) / float(r[b + ' TFLOP/s'])) for d, S, r in rows(name) if d == D]
            big = [x for S, x in pts if S >= 1024]
            print('%s %s / %s D=%d: %s; geomean S>=1k %.3f (min %.3f, max %.3f)' % (
                name, a, b, D, ' '.join('%d:%.3f' % p for p in pts), gm(big), min(big), max(big)))
