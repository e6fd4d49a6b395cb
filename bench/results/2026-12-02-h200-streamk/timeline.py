#!/usr/bin/env python3
"""timeline.py CSV...: summarizes trace_main.cu's per-turn timelines (r2-trace/, r4-trace/): per file the
median time per call (CUDA events), the last block's end and the first block's end (ns from the earliest
turn's begin), the median time per K step of whole-tile turns after a block's first, of a block's first
turn when it starts inside a tile, and of a cut tile's first turn, and the median hand-over time of the
turns that store their partial sums and of those that read them (count in brackets)."""
import csv, statistics as st, sys

for f in sys.argv[1:]:
    lines = open(f).read().split('\n')
    R = [{k: int(v) for k, v in r.items()} for r in csv.DictReader(l for l in lines if l and not l.startswith('#'))]
    med = [l for l in lines if l.startswith('#')][0].split()[3]
    n = max(r['k_hi'] for r in R)
    per = lambda rs: st.median((r['loop_end'] - r['begin']) / (r['k_hi'] - r['k_lo']) for r in rs) if rs else 0
    whole = [r for r in R if r['k_lo'] == 0 and r['k_hi'] == n and r['turn'] > 0]
    first_mid = [r for r in R if r['k_lo'] > 0]
    cut_first = [r for r in R if r['k_lo'] == 0 and 0 < r['k_hi'] < n]
    ends = {}
    for r in R:
        ends[r['block']] = max(ends.get(r['block'], 0), r['end'])
    e = sorted(ends.values())
    hand = lambda rs: '%.2f (%d)' % (st.median(r['hand_end'] - r['loop_end'] for r in rs) / 1e3, len(rs)) if rs else '-'
    print(f"| {f} | {med} | {e[-1] / 1e3:.1f} | {e[0] / 1e3:.1f} | {per(whole):.0f} | {per(first_mid):.0f} | {per(cut_first):.0f} | "
          f"{hand(first_mid)} | {hand(cut_first)} |")
