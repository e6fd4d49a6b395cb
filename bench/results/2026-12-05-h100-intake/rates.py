#!/usr/bin/env python3
"""rates.py DIR...: per kernel of an ncu raw page (NAME-raw.csv, from `ncu -i REP --page raw --csv`): duration,
grid, the cycles a block is active (sm__cycles_active.avg x 132 SMs / grid), the bytes landing in a block per
active cycle (l1tex__m_xbar2l1tex_read_bytes / grid / active), the L2's read bytes and its busiest unit (%)."""
import csv, glob, os, sys
for d in sys.argv[1:]:
    for fn in sorted(glob.glob(os.path.join(d, "*-raw.csv"))):
        rows = list(csv.reader(open(fn)))
        v, u = dict(zip(rows[0], rows[2])), dict(zip(rows[0], rows[1]))
        g = lambda k: float(v[k])
        grid, act = g("launch__grid_size"), g("sm__cycles_active.avg") * 132 / g("launch__grid_size")
        xbar = g("l1tex__m_xbar2l1tex_read_bytes.sum") * {"Mbyte": 1e6, "Kbyte": 1e3, "byte": 1}[u["l1tex__m_xbar2l1tex_read_bytes.sum"]]
        l2 = g("lts__t_sectors_srcunit_tex_op_read.sum") * 32
        print(f"{os.path.basename(fn)[:-8]:10s} {g('gpu__time_duration.sum'):6.2f} us  SM {g('sm__cycles_elapsed.avg.per_second'):4.2f} GHz  "
              f"grid {grid:4.0f}  active/block {act:6.0f} cyc  elapsed {g('gpc__cycles_elapsed.max'):6.0f}  landed {xbar/grid/act:5.1f} B/cyc/block  "
              f"L2 read {l2/1e6:6.1f} MB  into SMs {xbar/1e6:6.1f} MB  L2 busiest {g('lts__throughput.avg.pct_of_peak_sustained_elapsed'):4.1f}%")
