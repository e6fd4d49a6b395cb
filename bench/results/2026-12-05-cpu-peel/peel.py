#!/usr/bin/env python3
"""peel.py IN.cu OUT.cu: the rotated (pingpong) loops' first iteration peeled: the loop's body once with
v_j = 0 (the empty group in W's place), then the loop from 1 with W issued unconditionally."""
import re, sys
src = open(sys.argv[1]).read().split('\n')
def code(l):  # without // comments
    return l.split('//')[0]
def block_end(lines, i):  # index of the line closing the block opened on line i
    depth = 0
    for j in range(i, len(lines)):
        for ch in code(lines[j]):
            if ch == '{': depth += 1
            elif ch == '}':
                depth -= 1
                if depth == 0: return j
    raise ValueError
def split_deferred(body, k, which):
    """The body with each `if (k > 0) {W} else {E}` replaced by W's arm (which='W') or E's (which='E')."""
    res, j = [], 0
    while j < len(body):
        b = body[j]
        if re.match(r'^\s*if \(%s > 0\) \{.*deferred into this turn' % k, b):
            e = block_end(body, j)
            e2 = block_end(['{'] + body[e + 1:], 0) + e
            if which == 'W':
                res.append(b.replace('if (%s > 0) {' % k, '{', 1)); res += body[j + 1:e]; res.append(body[e].replace('} else {', '}'))
            else:
                res.append(re.sub(r'\S.*', "{  // the peeled first iteration: the empty group in W's place", b)); res += body[e + 1:e2]; res.append(body[e2])
            j = e2 + 1
            continue
        res.append(b); j += 1
    return res

out = []
i = 0
n = 0
while i < len(src):
    l = src[i]
    m = re.match(r'^(\s*)for \(int64_t (v_\w+) = 0; \2 < (v_\w+); \+\+\2\) \{', l)
    if m:
        end = block_end(src, i)
        body = src[i + 1:end]
        ind, k, trips = m.groups()
        dl = [j for j, b in enumerate(body) if re.match(r'^\s*if \(%s > 0\) \{.*deferred into this turn' % k, b)]
        if dl:
            n += 1
            out.append(ind + 'if (%s > 0) {  // the first iteration, peeled (nothing deferred into it)' % trips)
            out.append(ind + '  const int64_t %s = 0;' % k)
            out += split_deferred(body, k, 'E')
            out.append(ind + '}')
            out.append(ind + 'for (int64_t %s = 1; %s < %s; ++%s) {  // the deferred mma of the previous iteration on every path' % (k, k, trips, k))
            out += split_deferred(body, k, 'W')
            out.append(src[end])
            i = end + 1
            continue
    out.append(l)
    i += 1
open(sys.argv[2], 'w').write('\n'.join(out))
print(f'{n} loop(s) peeled')
