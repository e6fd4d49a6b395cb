#!/usr/bin/env python3
"""Session 48: what r1's widths tables say. For each table (bench/gemm_mappings.cu's output with examples/gemm's 27
mappings as m0-m26 and widths.sh's five candidates as m27-m31), per shape: cuBLAS, the best of the 27 and of all 32,
and the cost model's pick among the 27 and among the 32 (the smallest estimate; of equal estimates the dispatcher
takes the fewest bytes loaded, which the table does not print, so ties go to the first here). Geomeans of cuBLAS time
/ loom time, and the count below 0.90.
Usage: analyze.py TABLE.md [TABLE.md ...]"""
import math
import re
import sys

NAMES = {27: "128x208 on 2", 28: "128x208 on 4x2", 29: "128x208 alone", 30: "128x224 on 2", 31: "128x224 on 4x2"}


def load(fn):
    lines = open(fn).read().splitlines()
    hdr = [h.strip() for h in [l for l in lines if l.startswith("| shape")][0].split("|")[1:-1]]
    rows = []
    for l in lines:
        if not re.match(r"\| \d+x", l):
            continue
        c = [x.strip() for x in l.split("|")[1:-1]]
        ms = {}
        for h, v in zip(hdr[2:], c[2:]):
            m = re.match(r"([\d.]+) \(([\d.]+)\)", v)
            if m and re.match(r"m\d+", h):
                ms[int(h.split()[0][1:])] = (float(m.group(1)), float(m.group(2)))
        rows.append((c[0], float(c[1]), ms))
    return rows


def gm(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


for fn in sys.argv[1:]:
    rows = load(fn)
    print("##", fn, len(rows), "shapes")
    cols = {"best27": [], "best32": [], "pick27": [], "pick32": []}
    for shape, cb, ms in rows:
        old = {k: v for k, v in ms.items() if k < 27}
        b27 = min(old, key=lambda k: old[k][0])
        b32 = min(ms, key=lambda k: ms[k][0])
        p27 = min(old, key=lambda k: old[k][1])
        p32 = min(ms, key=lambda k: ms[k][1])
        for name, k in (("best27", b27), ("best32", b32), ("pick27", p27), ("pick32", p32)):
            cols[name].append(cb / ms[k][0])
        note = ""
        if b32 != b27:
            note += " best: m%d %s %.2f -> %.2f (%.1f%%)" % (b32, NAMES.get(b32, ""), ms[b27][0], ms[b32][0], 100 * (ms[b27][0] / ms[b32][0] - 1))
        if p32 != p27:
            note += " pick: m%d %.2f -> m%d %.2f" % (p27, ms[p27][0], p32, ms[p32][0])
        if note:
            print("  %-18s cuBLAS %8.2f%s" % (shape, cb, note))
    for name, xs in cols.items():
        print("  %s / cuBLAS geomean %.3f, below 0.90: %d" % (name, gm(xs), sum(x < 0.9 for x in xs)))
