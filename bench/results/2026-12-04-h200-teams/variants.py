#!/usr/bin/env python3
"""Session 37: the single-mapping programs timed in this folder's device calls, written next to this
file: each is an example's default mapping with one tile shape, by hand (`warpspecialize pipeline(4)`,
no teams, or the hand ping-pong `alternate(2)`) and with `schedule(optimal)` instead (the compiler
derives the teams from the tile loop's schedule). Run from the repository root."""
import os
here = os.path.dirname(os.path.abspath(__file__))

def default_only(path, cut):
    s = open(path).read()
    return s[:s.find(cut)]

def sub(s, old, new, n=1):
    for _ in range(n):
        assert old in s, old
        s = s.replace(old, new, 1)
    return s

gr = default_only('examples/gemm_reduce/gemm_reduce.loom', '// Smaller tiles')
# 128 x 128 tiles on two warpgroups of 64 rows (examples/gemm_reduce's first when(fastest) mapping)
g2 = sub(gr, 'tune(U=128, V=256) call(gemm_reduce_tile', 'tune(U=128, V=128) call(gemm_reduce_tile')
g2 = sub(g2, 'tune(N_MMA=256)', 'tune(N_MMA=128)', 8)
out = {
    'gr_g2_hand': sub(g2, 'warpspecialize pipeline(3)', 'warpspecialize pipeline(4)'),
    'gr_g2_opt': sub(g2, 'warpspecialize pipeline(3)', 'schedule(optimal)'),
}
# one warpgroup a 128 x 128 tile (tests/gpu/e2e/reduce_pingpong.sed's structure)
g1 = sub(g2, 'tune(G=2)', 'tune(G=1)', 4)
out['gr_g1_hand_pp'] = sub(g1, 'warpspecialize pipeline(3)', 'warpspecialize pipeline(4) alternate(2)')
out['gr_g1_opt'] = sub(g1, 'warpspecialize pipeline(3)', 'schedule(optimal)')
gm = default_only('examples/gemm/gemm.loom', '// Other tile shapes')
gm = sub(gm, 'tune(U=128, V=256)', 'tune(U=128, V=128)')
gm = sub(gm, 'N_MMA=256', 'N_MMA=128', 6)
out['gemm128_hand'] = sub(gm, 'warpspecialize pipeline(3)', 'warpspecialize pipeline(4)')
out['gemm128_opt'] = sub(gm, 'warpspecialize pipeline(3)', 'schedule(optimal)')
for k, v in out.items():
    open(os.path.join(here, k + '.loom'), 'w').write(v)
    print(k)
