# Writes a copy of an example whose only mapping is its default made split-K (bench/splitk/prepare.sh):
# force_split.py SRC DST V N_MMA W PIPELINE S
import re, sys
src, dst, V, nmma, W, pipe, S = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
s = open(src).read()
i = s.index('mapping sm_90a when(fastest)')
base = s[:i]
base = re.sub(r'tune\(U=128, V=256\)', 'tune(U=128, V=%d)' % V, base)
base = base.replace('N_MMA=256', 'N_MMA=%d' % nmma)
base = re.sub(r'tune\(W=64\)', 'tune(W=%d)' % W, base)
base = re.sub(r'warpspecialize pipeline\(3\)\n      smem\(227KB\);', 'warpspecialize pipeline(%d)\n      smem(227KB) splitk(%d);' % (pipe, S), base)
assert 'splitk(%d)' % S in base
open(dst, 'w').write(base)
