# Session 53: per TMA gemm kernel of two gemm_mappings binaries (cuobjdump -sass outputs), the SASS instruction count,
# HGMMA, STG, SHFL and MOVM counts: where the two builds' code differs beyond the epilogue's direct store.
import re, sys
def kernels(f):
    ks, cur = {}, None
    for l in open(f):
        m = re.match(r'\s+Function : (\S+)', l)
        if m: cur = m.group(1); ks[cur] = []; continue
        if cur and re.match(r'\s+/\*[0-9a-f]{4,}\*/', l): ks[cur].append(l)
    return ks
a, b = kernels(sys.argv[1]), kernels(sys.argv[2])
def cnt(ins, op): return sum(1 for l in ins if re.search(r'\b' + op + r'[ .]', l))
print("mapping  instrs old/new  HGMMA  STG  SHFL  MOVM  BAR")
for k in sorted(a, key=lambda k: int(re.search(r'mapping(\d+)', k).group(1)) if 'mapping' in k else -1):
    if 'gemm_kernel' not in k or 'async' in k: continue
    m = re.search(r'mapping(\d+)', k).group(1)
    ia, ib = a[k], b.get(k, [])
    print(m, len(ia), len(ib), *("%d/%d" % (cnt(ia, o), cnt(ib, o)) for o in ("HGMMA", "STG", "SHFL", "MOVM", "BAR")))
