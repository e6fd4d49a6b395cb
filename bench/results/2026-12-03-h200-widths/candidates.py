#!/usr/bin/env python3
"""candidates.py EXAMPLE.loom OUT.loom SPEC...: EXAMPLE with when(fastest) mappings appended, each a
copy of one of its mappings with another block width V (N_MMA with it) and pipeline depth.
SPEC = U x V_FROM : V_TO : DEPTH, e.g. 128x256:224:4 copies the first plain mapping (no
multicast/splitk/streamk/alternate) whose host tune is (U=128, V=256), with V=224, N_MMA=224 and
pipeline(4); U x V_FROM mc (128x192mc:224:3) copies the first multicast(2) mapping with that tile
instead (one that lists its N_MMA instances: the 128 x 192 one). Widths that are not whole 64-column swizzle slices use the padded B rows of
ir::padded_row (session 34)."""
import re
import sys

src_path, out_path, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
src = open(src_path).read()
blocks = []
for m in re.finditer(r'\nmapping sm_90a[^{]*\{\n.*?\n\}\n', src, re.S):
    blocks.append(m.group(0))
out = src.rstrip('\n') + '\n\n// ---- candidates.py: ' + ' '.join(specs) + '\n'
for spec in specs:
    uv, vto, depth = spec.split(':')
    u, vfrom = uv.split('x')
    mc = vfrom.endswith('mc')
    vfrom = vfrom[:-2] if mc else vfrom
    pick = None
    for b in blocks:
        plain = not re.search(r'multicast|splitk|streamk|alternate|pingpong', b)
        wanted = re.search(r'multicast\(2\)', b) and not re.search(r'splitk|streamk|alternate|pingpong', b) if mc else plain
        if re.search(r'tune\(U=%s, V=%s\)' % (u, vfrom), b) and wanted and (not mc or 'N_MMA=%s' % vfrom in b):
            pick = b
            break
    if pick is None:
        sys.exit('no plain mapping with U=%s, V=%s in %s' % (u, vfrom, src_path))
    b = pick
    # the default mapping (no when) lists every instance: fine as a when(fastest) copy
    b = re.sub(r'\nmapping sm_90a( when\([^)]*\))?', '\nmapping sm_90a when(fastest)', b, count=1)
    b = b.replace('V=%s)' % vfrom, 'V=%s)' % vto).replace('N_MMA=%s)' % vfrom, 'N_MMA=%s)' % vto)
    b = re.sub(r'pipeline\(\d+\)', 'pipeline(%s)' % depth, b)
    out += b
open(out_path, 'w').write(out)
