# candidates_ppmc.py SRC.loom DST.loom: examples/gemm_bias_act (or examples/gemm) with ping-pong + multicast
# candidates appended: the program's ping-pong mapping (the last `alternate(2)` one; for examples/gemm,
# gemm_bias_act's form of it rewritten for gemm's instances) with `multicast(2)` added and rings of 5 and
# 6 stages (two when(fastest) mappings after the program's own).
import re, sys
src, dst = sys.argv[1], sys.argv[2]
s = open(src).read()
blocks = re.findall(r'mapping sm_90a when\(fastest\) \{.*?\n\}\n', s, re.S)
pp = [b for b in blocks if 'alternate(2)' in b]
if pp:
    base = pp[-1]
else:  # examples/gemm: its 128 x 128 mapping on one warpgroup per team
    m1 = blocks[0]
    base = m1.replace('pipeline(4)\n      smem(227KB);', 'pipeline(5)\n      alternate(2) smem(227KB);')
    base = base.replace('  instance gemm_wg', '  instance gemm_tile = gemm_tile on BLOCK mem(NONE, SHARED, SHARED) tune(G=1) call(gemm: gemm_wg)\n      layout(A: row_major swizzle128, B: row_major swizzle128);\n  instance gemm_wg', 1)
    base = base.replace('  instance clear_wg', '  instance clear_tile = clear_tile on BLOCK mem(NONE) tune(G=1) call(clear: clear_wg);\n  instance clear_wg', 1)
    base = base.replace('  instance copy_wg', '  instance copy_tile = copy_tile on BLOCK mem(GLOBAL, NONE) tune(G=1) call(copy: copy_wg);\n  instance copy_wg', 1)
out = s + '\n// Session 29 candidates (bench/results/2026-12-02-h200-streamk/candidates_ppmc.py): ping-pong + multicast(2).\n'
for st in (5, 6):
    b = re.sub(r'pipeline\(\d\)\n      alternate\(2\) smem\(227KB\);', 'pipeline(%d)\n      alternate(2) multicast(2) smem(227KB);' % st, base)
    assert b != base
    out += '\n' + b
open(dst, 'w').write(out)
