#!/usr/bin/env python3
"""dbuf.py IN.cu OUT.cu: peel.py's transform plus P double-buffered: the rotated loop's first iteration peeled
(packing P into A), then the loop unrolled by 2 from iteration 1, the first copy's deferred mma reading A and its
pack writing B, the second's reading B and writing A, an odd last iteration after it, and the deferred mma after
the loop reading A or B by the parity of the last iteration. A = the hoisted array the deferred mma reads
(`%A.1: declared before the loop`), B a second one declared beside it."""
import re, sys
exec(open(__file__.replace('dbuf.py', 'peel.py')).read().split('out = []')[0])  # code(), block_end(), split_deferred()
src = open(sys.argv[1]).read().split('\n')

def rename(lines, arr, read, write):
    """W's reads of arr -> read (inside the deferred block), the pack's writes of arr -> write."""
    out, inW = [], False
    for l in lines:
        if 'deferred into this turn' in l: inW = True
        if inW:
            l = re.sub(r'\b%s\b' % arr, read, l)
            if 'wgmma_commit' in l: inW = False
        elif re.search(r'\b%s\[i\] = ' % arr, l):
            l = re.sub(r'\b%s\b' % arr, write, l)
        out.append(l)
    return out

out, i, n = [], 0, 0
arr = None
while i < len(src):
    l = src[i]
    m = re.match(r'^\s*uint32_t (v_\w+)\[(\d+)\];  // .* in registers: .*A fragments', l)
    if m and i > 0 and 'declared before the loop' in src[i - 1]:
        arr, words = m.group(1), m.group(2)
        out.append(l)
        out.append(re.match(r'^\s*', l).group(0) + 'uint32_t %sb[%s];  // its second buffer (P double-buffered by iteration parity)' % (arr, words))
        i += 1
        continue
    m = re.match(r'^(\s*)for \(int64_t (v_\w+) = 0; \2 < (v_\w+); \+\+\2\) \{', l)
    if m and arr:
        end = block_end(src, i)
        body = src[i + 1:end]
        ind, k, trips = m.groups()
        if any(re.match(r'^\s*if \(%s > 0\) \{.*deferred into this turn' % k, b) for b in body):
            n += 1
            A, B = arr, arr + 'b'
            E = split_deferred(body, k, 'E'); Wb = split_deferred(body, k, 'W')
            out.append(ind + 'if (%s > 0) {  // the first iteration, peeled (nothing deferred into it): P into %s' % (trips, A))
            out.append(ind + '  const int64_t %s = 0;' % k); out += E; out.append(ind + '}')
            out.append(ind + 'int64_t %s_pair = 1;' % k)
            out.append(ind + 'for (; %s_pair + 1 < %s; %s_pair += 2) {  // two iterations: the deferred mma reads %s then %s' % (k, trips, k, A, B))
            out.append(ind + '  {'); out.append(ind + '    const int64_t %s = %s_pair;' % (k, k)); out += rename(Wb, A, A, B); out.append(ind + '  }')
            out.append(ind + '  {'); out.append(ind + '    const int64_t %s = %s_pair + 1;' % (k, k)); out += rename(Wb, A, B, A); out.append(ind + '  }')
            out.append(ind + '}')
            out.append(ind + 'if (%s_pair < %s) {  // an odd last iteration' % (k, trips))
            out.append(ind + '  const int64_t %s = %s_pair;' % (k, k)); out += rename(Wb, A, A, B); out.append(ind + '}')
            i = end + 1
            # the deferred mma after the loop: the last iteration's buffer
            while i < len(src) and not re.search(r'deferred into this turn', src[i]): out.append(src[i]); i += 1
            e = block_end(src, i)
            Wt = src[i:e + 1]
            out.append(re.match(r'^\s*', src[i]).group(0) + 'if (((%s - 1) & 1) == 0) {  // the last P is in %s' % (trips, A))
            out += Wt
            out.append(re.match(r'^\s*', src[i]).group(0) + '} else {  // in %s' % B)
            out += [re.sub(r'\b%s\b' % A, B, x) for x in Wt]
            out.append(re.match(r'^\s*', src[i]).group(0) + '}')
            i = e + 1
            continue
    out.append(l)
    i += 1
open(sys.argv[2], 'w').write('\n'.join(out))
print(f'{n} loop(s) double-buffered')
