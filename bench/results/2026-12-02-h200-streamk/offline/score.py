#!/usr/bin/env python3
"""score.py (run in this folder): the launcher's picks scored on the measured tables of this report,
for the cost model without (*.intake0.est) and with (*.est) CostModel::intake_bytes_per_cycle = 56.
The estimates are the generated programs' estimate_cycles() compiled for the host
(../../2026-12-02-h200-pingpong/estimates.cu for gemm and gemm_bias_act, ../estimates_add_gemm.cu,
../estimates_relu_gemm.cu, ../estimates_gemm_residual.cu), with loom built both ways; the host replica
assumes SMs / S cluster slots, so cluster mappings' estimates differ from the device's a little.
Prints pick / peer geomeans per table and group."""
import math, re

def gm(x):
    return math.exp(sum(map(math.log, x)) / len(x))

def load_est(p):
    return {l.split()[0]: [float(x) for x in l.split()[1:]] for l in open(p)}

def gemm_rows(path, n):  # bench/gemm_mappings.cu tables: peer cuBLAS
    rows = []
    for l in open(path):
        c = [x.strip() for x in l.split('|')[1:-1]]
        if len(c) > 5 and re.match(r'^\d+x\d+x\d+$', c[0]):
            rows.append((c[0], 'all', float(c[1]), [float(x.split()[0]) for x in c[2:2 + n]]))
    return rows

def fused_rows(path, n):  # bench/fused_bench.py --by-mapping tables: the first peer column
    main, byi = {}, {}
    for l in open(path):
        c = [x.strip() for x in l.split('|')[1:-1]]
        if len(c) > 6 and c[1] in ('listed', 'sweep'):
            main[c[0]] = (c[1], float(c[4]))
        elif len(c) >= n + 2 and re.match(r'^\d+x\d+x\d+$', c[0]):
            try:
                byi[c[0]] = [float(x) for x in c[2:2 + n]]
            except ValueError:
                pass
    return [(s, main[s][0], main[s][1], byi[s]) for s in byi if s in main]

def pick_score(rows, est, n):
    out = {}
    for s, g, peer, t in rows:
        p = min(range(n), key=lambda i: est[s][i])
        out.setdefault(g, []).append(peer / t[p])
    return ' '.join('%s %.3f' % (g, gm(v)) for g, v in sorted(out.items()))

TABLES = [('gemm r1 (15 committed)', gemm_rows('../r1-gemm-sweep.md', 17), 'n_gemm_r1', 15),
          ('gemm r4 (15 committed)', gemm_rows('../r4-gemm-sweep.md', 17), 'n_gemm_r4', 15),
          ('gemm r3 (17: + ping-pong multicast)', gemm_rows('../r3-gemm-sweep.md', 17), 'n_gemm17_r3', 17),
          ('gemm r3 table (17)', gemm_rows('../r3-gemm-table.md', 17), 'n_gemm17_r3t', 17),
          ('gemm_bias_act r3 (13 committed)', fused_rows('../r3-gba.md', 15), 'n_gba_r3', 13),
          ('gemm_bias_act r3 (15: + ping-pong multicast)', fused_rows('../r3-gba.md', 15), 'n_gba15_r3', 15),
          ('add_gemm r5 (10 committed)', fused_rows('../r5-ag-new.md', 10), 'n_ag', 10),
          ('relu_gemm r6 (12 committed)', fused_rows('../r6-rg-new.md', 12), 'n_rg', 12),
          ('gemm_residual r7 (3 candidates)', fused_rows('../r7-gr.md', 3), 'n_gr', 3)]
for name, rows, est, n in TABLES:
    print('| %s | %s | %s |' % (name, pick_score(rows, load_est(est + '.intake0.est'), n), pick_score(rows, load_est(est + '.est'), n)))
