# Writes a copy of examples/gemm (or batched_gemm) for bench/streamk/prepare.sh:
#   force.py SRC DST strip           the program without its streamk candidates (the "before" dispatcher)
#   force.py SRC DST V N_MMA PIPE    the default mapping only, made V-wide with streamk (forced stream-K)
import re, sys
src, dst, what = sys.argv[1], sys.argv[2], sys.argv[3]
s = open(src).read()
if what == 'strip':
    i = s.index('// Stream-K candidates')
    out = s[:i]
    assert 'streamk' not in out.split('mapping sm_90a {', 1)[1]
else:
    V, nmma, pipe = map(int, sys.argv[3:6])
    i = s.index('mapping sm_90a when(fastest)')
    out = s[:i]
    out = re.sub(r'tune\(U=128, V=256\)', 'tune(U=128, V=%d)' % V, out)
    out = out.replace('N_MMA=256', 'N_MMA=%d' % nmma)
    out, n = re.subn(r'warpspecialize pipeline\(3\)\n      smem\(227KB\);', 'warpspecialize pipeline(%d)\n      streamk smem(227KB);' % pipe, out)
    assert n == 1
open(dst, 'w').write(out)
