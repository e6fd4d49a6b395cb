#!/usr/bin/env python3
"""scripts/sass_hazards.py SASS: writes to the A registers of a wgmma still in flight.

A wgmma that takes its A fragments from registers (SASS `HGMMA ... Rd, Ra, gdesc[..]`) reads
Ra..Ra+3 until the wait that completes its group (`WARPGROUP.DEPBAR`). ptxas normally keeps them;
for a wgmma issued under a branch it has been seen to give them to other values at once (the
hand-pipelined FlashAttention-3 loop with turns: wrong results on the GPU, 677 such writes in its
SASS; bench/results/2026-12-05-h200-sched.md), a miscompile no sanitizer sees. This scan reports
every instruction that writes one of those registers after such an HGMMA and before the next
WARPGROUP.DEPBAR, in address order within each function of a `cuobjdump -sass` dump.

It is a linear scan: branches are not followed, so a write on a path that never follows the
HGMMA (code laid out after a jump) would be reported too, and the wait is taken to be the next
DEPBAR in address order. On the kernels loom generates today the count is 0 (flash_attention_2,
flash_attention_3, flash_attention_3_causal), so any write it reports is worth reading.

Exit status: 0 none, 1 some (each printed: function, address, instruction, the HGMMA's address),
2 usage. Used by scripts/codegen_compile_check.sh (step 2c).
"""
import re
import sys


def hazards(text):
    """(function, address, instruction, hgmma address) for each write to an in-flight A register."""
    out = []
    func, pending = '?', {}  # register number -> address of the HGMMA that reads it
    for line in text.split('\n'):
        m = re.search(r'Function : (\S+)', line)
        if m:
            func, pending = m.group(1), {}
            continue
        m = re.match(r'\s+/\*([0-9a-f]+)\*/\s+(.*?)\s*;', line)
        if not m:
            continue
        addr, ins = m.group(1), m.group(2)
        if 'WARPGROUP.DEPBAR' in ins:
            pending = {}
            continue
        h = re.match(r'HGMMA\.\S+ R\d+, R(\d+), gdesc', ins)
        if h:
            for r in range(int(h.group(1)), int(h.group(1)) + 4):
                pending[r] = addr
            continue
        w = re.match(r'(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s+R(\d+)\b', ins)
        if w and pending and int(w.group(2)) in pending and not w.group(1).startswith(('ST', 'BAR', 'SYNCS', 'RED', 'ATOM')):
            out.append((func, addr, ins, pending[int(w.group(2))]))
    return out


def main(argv):
    if len(argv) != 2:
        print(__doc__.split('\n')[0], file=sys.stderr)
        return 2
    found = hazards(open(argv[1]).read())
    for func, addr, ins, at in found:
        print(f'{func}: /*{addr}*/ {ins}  writes an A register of the wgmma at /*{at}*/ before its wait')
    print(f'sass_hazards: {len(found)} write(s) to the A registers of a wgmma in flight')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
