#!/usr/bin/env python3
"""analyze.py TABLE.md FIRST_NEW: from a bench/gemm_mappings.cu table, per shape the fastest of the
mappings before FIRST_NEW (the committed ones) against the fastest of all (with the candidates),
and the pick; geomeans of cuBLAS / loom and the shapes below 0.90x for each."""
import math
import re
import sys

path, first_new = sys.argv[1], int(sys.argv[2])
rows, header = [], None
for line in open(path):
    if not line.startswith('| '):
        continue
    cells = [c.strip() for c in line.strip().strip('|').split('|')]
    if cells[0] == 'shape':
        header = cells
        continue
    if header is None or cells[0].startswith('---'):
        continue
    rows.append(dict(zip(header, cells)))
maps = [h for h in header if re.match(r'm\d+ µs', h)]
def us(cell):
    m = re.match(r'([\d.]+)', cell)
    return float(m.group(1)) if m else None
def est(cell):
    m = re.search(r'\(([\d.]+)\)', cell)
    return float(m.group(1)) if m else None
out = []
for r in rows:
    cub = us(r['cuBLAS µs'])
    t = {int(re.match(r'm(\d+)', h).group(1)): us(r[h]) for h in maps}
    old = min((v, k) for k, v in t.items() if k < first_new and v)
    new = min((v, k) for k, v in t.items() if v)
    pick = r.get('pick', '')
    pk = int(pick[1:]) if pick.startswith('m') else None
    e = {int(re.match(r'm(\d+)', h).group(1)): est(r[h]) for h in maps}
    pk_old = min((v, k) for k, v in e.items() if k < first_new and v is not None)[1]  # the committed set's pick
    out.append((r['shape'], cub, old, new, pk, t.get(pk), t.get(pk_old)))
def geo(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))
print('| shape | cuBLAS µs | best committed (m) | best with candidates (m) | gain | pick (m) | cuBLAS / best committed | cuBLAS / best all | cuBLAS / pick |')
print('|---|---|---|---|---|---|---|---|---|')
for s, cub, old, new, pk, pt, _ in out:
    print(f'| {s} | {cub:.2f} | {old[0]:.2f} (m{old[1]}) | {new[0]:.2f} (m{new[1]}) | {old[0]/new[0]:.3f} | '
          f'{pt:.2f} (m{pk}) | {cub/old[0]:.3f} | {cub/new[0]:.3f} | {cub/pt:.3f} |')
for name, f in (('best committed', lambda o: o[2][0]), ('best with candidates', lambda o: o[3][0]), ('pick', lambda o: o[5]),
                ('pick of the committed mappings alone (their estimates)', lambda o: o[6])):
    r = [o[1] / f(o) for o in out]
    print(f'- {name}: cuBLAS / loom geomean {geo(r):.3f}, min {min(r):.3f}, below 0.90: {sum(x < 0.9 for x in r)} of {len(r)}')
won = [o for o in out if o[3][1] >= first_new and o[2][0] / o[3][0] > 1.02]
print(f'- a candidate (m{first_new}+) is > 2% faster than every committed mapping on {len(won)} shapes: ' +
      ', '.join(f'{o[0]} m{o[3][1]} {o[2][0]/o[3][0]:.3f}' for o in won))
