#!/usr/bin/env python3
"""sass_regions.py FILE.csv [N]: ncu's source page (SASS, r4.sh) summed: warp-stall samples and
instructions executed in total, per coarse region (the consumer's K loop: from its first to its last
WGMMA and the waits around them; the rest), and the N instructions with the most samples."""
import csv
import sys

rows = []
with open(sys.argv[1]) as f:
    lines = [l for l in f if l.startswith('"')]
r = csv.reader(lines)
head = None
for row in r:
    if row and row[0] == "Address":
        head = row
        continue
    if head and len(row) == len(head):
        d = dict(zip(head, row))
        rows.append((d["Source"].strip(), int(d["Warp Stall Sampling (All Samples)"] or 0), int(d["Instructions Executed"] or 0)))
n = int(sys.argv[2]) if len(sys.argv) > 2 else 20
tot_s = sum(s for _, s, _ in rows)
tot_i = sum(i for _, _, i in rows)
wg = [k for k, (src, _, _) in enumerate(rows) if "HGMMA" in src]
lo, hi = (wg[0], wg[-1]) if wg else (0, -1)
# the K loop region: from the first HGMMA back to the loop's first wait (SYNCS) and up to the last HGMMA's wait
while lo > 0 and "SYNCS" not in rows[lo - 1][0] and lo - wg[0] > -40:
    lo -= 1
loop_s = sum(s for _, s, _ in rows[lo:hi + 8])
loop_i = sum(i for _, _, i in rows[lo:hi + 8])
print("%s: %d instructions, %d samples, %d executed; K loop region [%d, %d]: %d samples, %d executed" %
      (sys.argv[1], len(rows), tot_s, tot_i, lo, hi + 8, loop_s, loop_i))
for k, (src, s, i) in sorted(enumerate(rows), key=lambda x: -x[1][1])[:n]:
    print("%5d %6d %9d  %s" % (k, s, i, src[:90]))
