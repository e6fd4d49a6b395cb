"""Edits a generated examples/gemm gemm.cu into a fixed-path variant (round 2 of
2026-11-29-h200-gemm-small.md), in the TMA kernels of the one-compute-warpgroup mappings (256 threads):
  nreg: no setmaxnreg in either role (the block has two warpgroups: at launch every thread already
        has 248 registers, so the split moves almost nothing and costs both roles an instruction that
        waits for their whole warpgroup);
  init: the barriers initialized by eight threads (thread s the slot-s barrier of every ring) and
        the tensor maps prefetched by another warp, instead of thread 0 doing all of it (not in
        the split-K kernels, whose setup ends in a cluster barrier).
Usage: python3 variant.py IN.cu OUT.cu nreg[,init]"""
import re, sys
src, dst, what = sys.argv[1], sys.argv[2], sys.argv[3].split(',')
text = open(src).read()
parts = re.split(r'(namespace mapping\d+ \{)', text)
out = [parts[0]]
edited = 0
for i in range(1, len(parts), 2):
    head, body = parts[i], parts[i + 1]
    if 'constexpr int kThreads = 256;' in body:
        # the TMA kernel follows the async_copy namespace
        pre, sep, tma = body.partition('}  // namespace async_copy')
        if 'nreg' in what:
            tma = re.sub(r'\n\s*loom::rt::setmaxnreg_(dec|inc)<\d+>\(\);', '', tma)
        if 'init' in what:
            m = re.search(r'  if \(threadIdx.x == 0\) \{\n((?:    .*\n)+?)  \}\n  __syncthreads\(\);', tma)
        if 'init' in what and m:  # (a split-K kernel's setup ends in a cluster barrier: left as it is)
            lines = m.group(1).splitlines()
            pf = [l for l in lines if 'prefetch_tensormap' in l]
            inits = [re.match(r'\s*for \(int s = 0; s < (\d+); \+\+s\) (loom::rt::mbarrier::init\(.*\);)', l) for l in lines if 'mbarrier::init' in l]
            n = max(int(x.group(1)) for x in inits)
            new = '  if (threadIdx.x < %d) {\n    const int s = threadIdx.x;\n' % n
            for x in inits:
                new += ('    ' if int(x.group(1)) == n else '    if (s < %s) ' % x.group(1)) + x.group(2) + '\n'
            new += '    loom::rt::fence_barrier_init();\n  }\n'
            if pf:
                new += '  if (threadIdx.x == 32) {\n' + '\n'.join(pf) + '\n  }\n'
            new += '  __syncthreads();'
            tma = tma[:m.start()] + new + tma[m.end():]
        body = pre + sep + tma
        edited += 1
    out += [head, body]
open(dst, 'w').write(''.join(out))
print(f'{dst}: {what} in {edited} mappings')
