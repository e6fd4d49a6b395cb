#!/usr/bin/env python3
"""Experiment H of bench/results/2026-11-28-h200-gemm-latency.md: rewrites a generated gemm.cu so
that thread 0 issues each persistent TMA kernel's first tile's first ring-depth K stages right after
it initializes the barriers (before the setup's __syncthreads), and the producer loop skips them.
A text edit for a timing experiment, not part of the compiler.
Usage: early_issue.py IN.cu OUT.cu"""
import re, sys
s=open(sys.argv[1]).read()
def block_end(t, i):
    # i at an opening brace; returns index after its matching close
    d=0
    for j in range(i, len(t)):
        if t[j]=='{': d+=1
        elif t[j]=='}':
            d-=1
            if d==0: return j+1
    raise ValueError
def early(kern):
    p=kern.find('// ---- producer: the DMA role, one elected thread')
    if p<0: return kern, False
    m=re.search(r'\n(\s*)for \(int64_t tile = blockIdx\.x; tile < ([^;]+); tile \+= gridDim\.x\) \{\n', kern[p:])
    if not m: return kern, False
    t0=p+m.end()
    km=re.search(r'\n(\s*)for \(int64_t v_k = 0; v_k < (\w+); \+\+v_k\) \{\n', kern[t0:])
    if not km: return kern, False
    decode=kern[t0:t0+km.start()+1]
    kb=t0+km.end()-2  # at '{'
    ke=block_end(kern, kb)
    body=kern[kb+1:ke-1]
    D=int(re.search(r'pipelined (\d+) deep', kern[p:]).group(1))
    bases=re.findall(r'int64_t (v_\w+_base) = 0;', kern[p:t0])
    if 'continue' in body or 'break' in body: return kern, False
    blk=('    {  // early issue (experiment H): the first tile\'s first stages, before the setup barrier\n'
         '      const int64_t tile = blockIdx.x;\n'
         + ''.join(f'      const int64_t {b} = 0;\n' for b in bases) +
         f'      if (tile < {m.group(2)}) {{\n' + decode +
         f'      for (int64_t v_k = 0; v_k < loom_min({km.group(2)}, {D}); ++v_k) {{\n' + body + '      }\n      }\n    }\n')
    f=kern.find('    loom::rt::fence_barrier_init();\n')
    kern2=kern[:f+len('    loom::rt::fence_barrier_init();\n')]+blk+kern[f+len('    loom::rt::fence_barrier_init();\n'):]
    # the producer skips what was issued early
    off=len(blk)
    kb2=kb+off
    kern2=kern2[:kb2+1]+f'\n{km.group(1)}  if (tile == blockIdx.x && v_k < {D}) continue;  // issued early (experiment H)'+kern2[kb2+1:]
    return kern2, True
parts=re.split(r'(?=^// The TMA kernel\.$)', s, flags=re.M)
out=[parts[0]]; n=[]
for i,p in enumerate(parts[1:]):
    e=p.find('\n// Checks every argument')
    k,r=p[:e],p[e:]
    k2,ok=early(k)
    if ok: n.append(i)
    out.append(k2+r)
open(sys.argv[2],'w').write(''.join(out))
print('early issue in kernels', n)
