#!/usr/bin/env python3
# bench/results/2026-12-05-h200-sched/hazard.py DUMP: cuobjdump -sass output in, a count out (session 39).
# For each kernel in a SASS dump: after every HGMMA that takes its A operand from registers (R<n>
# before gdesc), report writes to those registers (4 consecutive) before the next WARPGROUP.DEPBAR
# in program (address) order. A crude, linear scan (branches not followed).
import re, sys
lines = open(sys.argv[1]).read().split('\n')
kern = None; pending = {}  # reg -> address of the HGMMA reading it
hits = 0
for l in lines:
    m = re.search(r'Function : (\S+)', l)
    if m: kern = m.group(1)[-40:]; pending = {}; continue
    m = re.match(r'\s+/\*([0-9a-f]+)\*/\s+(.*?);', l)
    if not m: continue
    addr, ins = m.group(1), m.group(2)
    if 'WARPGROUP.DEPBAR' in ins: pending = {}; continue
    h = re.match(r'HGMMA\.\S+ R\d+, R(\d+), gdesc', ins)
    if h:
        for r in range(int(h.group(1)), int(h.group(1)) + 4): pending[r] = addr
        continue
    w = re.match(r'(@!?U?P\d+\s+)?([A-Z][A-Z0-9_.]*)\s+R(\d+)', ins)
    if w and pending and int(w.group(3)) in pending and not w.group(2).startswith(('ST', 'BAR', 'SYNCS', 'RED', 'ATOM')):
        hits += 1
        if hits <= 8: print(f'{kern}: {addr}: {ins}  (A operand of the HGMMA at {pending[int(w.group(3))]})')
print('writes to in-flight A registers:', hits)
