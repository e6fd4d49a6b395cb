#!/usr/bin/env python3
"""fit.py EST NMAP R... [--mode M] [--flips NAME]: score the cost model of EST (a program mk.py made)
at ring round trips R (0: the estimate as generated) on per-mapping H100 timings: for each data set,
the geomean over its shapes of peer time / measured time of the mapping the model picks (the
launcher's choice), its minimum, and the same for the best measured mapping. Data sets come from
FILES=name=path,... : bench/gemm_mappings.cu tables (a cuBLAS column, then one column per mapping)
or bench/fused_bench.py --by-mapping reports (the peer is the main table's cuBLASLt epilogue; the
report's 'listed' and 'sweep' shapes become two sets). Only mappings 0 .. NMAP-1 are considered.
--flips NAME lists, for data set NAME, the shapes whose pick differs between the first and last R."""
import math
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
results = os.path.dirname(here)


def load_mappings_table(path, nm):
    rows = []
    for line in open(path):
        if re.match(r'\| \d+x', line):
            c = [x.strip() for x in line.split('|')[1:-1]]
            rows.append((c[0], float(c[1]), [float(c[2 + i].split()[0]) for i in range(nm)]))
    return {'': rows}


def load_fused_by_mapping(path, nm):
    lines = open(path).read().splitlines()
    peer, group = {}, {}
    for line in lines:
        m = re.match(r'\| (\d+x\d+x\d+) \| (listed|sweep) \| [\d.]+ \| [\d.]+ \| ([\d.]+) \|', line)
        if m:
            peer[m.group(1)], group[m.group(1)] = float(m.group(3)), m.group(2)
    start = [k for k, l in enumerate(lines) if re.match(r'\| \S+ \| pick \|', l)][0]
    sets = {'listed': [], 'sweep': []}
    for line in lines[start + 2:]:
        if not line.startswith('| '):
            break
        c = [x.strip() for x in line.split('|')[1:-1]]
        sets[group[c[0]]].append((c[0], peer[c[0]], [float(x) for x in c[2:2 + nm]]))
    return {'-' + k: v for k, v in sets.items()}


def geomean(v):
    return math.exp(sum(map(math.log, v)) / len(v))


def main():
    args = sys.argv[1:]
    mode = args[args.index('--mode') + 1] if '--mode' in args else '1'
    flips = args[args.index('--flips') + 1] if '--flips' in args else None
    args = [a for i, a in enumerate(args) if a not in ('--mode', '--flips') and (i == 0 or args[i - 1] not in ('--mode', '--flips'))]
    est, nm, lats = args[0], int(args[1]), [float(x) for x in args[2:]]
    default = 'sweep=%s/2026-11-28-h100-pingpong/r4-gemm-15-mappings-sweep-20261125.md,table=%s/2026-11-28-h100-pingpong/r4-gemm-15-mappings-table.md' % (results, results)
    sets = {}
    for item in os.environ.get('FILES', default).split(','):
        name, path = item.split('=', 1)
        loader = load_fused_by_mapping if 'cuBLASLt epilogue' in open(path).read() else load_mappings_table
        for suffix, rows in loader(path, nm).items():
            sets[name + suffix] = rows
    picks = {}
    for lat in lats:
        line = 'R %5.0f' % lat
        for name, rows in sets.items():
            inp = ''.join('%s %s %s\n' % tuple(s.split('x')) for s, _, _ in rows)
            out = subprocess.run([est, str(lat), mode], input=inp, capture_output=True, text=True, check=True).stdout.split('\n')
            r, rb, worst = [], [], (9.0, '')
            for (shape, peer, t), o in zip(rows, out):
                e = [float(x) for x in o.split()[1:1 + nm]]
                p = min(range(nm), key=lambda i: e[i])
                picks.setdefault((name, shape), []).append(p)
                r.append(peer / t[p])
                rb.append(peer / min(t))
                worst = min(worst, (peer / t[p], shape))
            line += '  %s pick %.3f (min %.3f %s) best %.3f' % (name, geomean(r), worst[0], worst[1], geomean(rb))
        print(line)
    if flips:
        for (shape, peer, t) in sets[flips]:
            p = picks[(flips, shape)]
            if p[0] != p[-1]:
                best = min(range(nm), key=lambda i: t[i])
                print('%s: m%d %.4f -> m%d %.4f (best m%d %.4f, peer %.4f)' % (shape, p[0], t[p[0]], p[-1], t[p[-1]], best, t[best], peer))


main()
