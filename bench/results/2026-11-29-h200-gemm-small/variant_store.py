"""Edits a generated examples/gemm gemm.cu (round 3 of 2026-11-29-h200-gemm-small.md): in the TMA
kernels of the mappings without clusters, a block's last tile is stored with plain 16-byte stores
read back from the staging tile (each thread copies chunks of the swizzled tile; no TMA store, so
the block need not wait at its end for a bulk store to finish reading shared memory); earlier tiles
keep the TMA store, which runs under the next tile's main loop. A probe, not the compiler's code.
Usage: python3 variant_store.py IN.cu OUT.cu"""
import re, sys
text = open(sys.argv[1]).read()
parts = re.split(r'(namespace mapping\d+ \{)', text)
out = [parts[0]]; edited = []
store_re = re.compile(r'( *)if \(tid == 0\) \{\n((?: *loom::rt::tma_store_2d\(&tm_C_2, stage(?: \+ \d+)?, static_cast<int32_t>\(.*\), static_cast<int32_t>\(.*\)\);\n)+) *loom::rt::tma_store_commit\(\);\n *\}\n')
box_re = re.compile(r'loom::rt::tma_store_2d\(&tm_C_2, stage(?: \+ (\d+))?, static_cast<int32_t>\((.*)\), static_cast<int32_t>\((.*)\)\);')
for i in range(1, len(parts), 2):
    head, body = parts[i], parts[i + 1]
    pre, sep, tma = body.partition('}  // namespace async_copy')
    if 'cluster' in tma or not sep:
        out += [head, body]; continue
    def repl(m):
        ind = m.group(1)
        boxes = [box_re.search(l).groups() for l in m.group(2).splitlines()]
        row = boxes[0][2]
        s = ind + 'if (tile + gridDim.x >= grid_n0 * grid_n1) {  // the block\'s last tile: plain stores, nothing left reading shared memory at the end\n'
        s += ind + '  __nv_bfloat16* const cbase = reinterpret_cast<__nv_bfloat16*>(C.data);\n'
        s += ind + '  const int64_t rows_end = loom_min(static_cast<int64_t>(C.shape[0]), (%s) + 64);\n' % row
        for off, col, _ in boxes:
            off = off or '0'
            s += ind + '  #pragma unroll\n'
            s += ind + '  for (int i = tid; i < 512; i += 128) {\n'
            s += ind + '    const int r = i >> 3, ch = i & 7;\n'
            s += ind + '    const int64_t grow = (%s) + r, gcol = (%s) + ch * 8;\n' % (row, col)
            s += ind + '    if (grow >= rows_end || gcol >= C.shape[1]) continue;\n'
            s += ind + '    const uint4 v = *reinterpret_cast<const uint4*>(stage + %s + r * 128 + ((ch ^ (r & 7)) * 16));\n' % off
            s += ind + '    __nv_bfloat16* const dst = cbase + grow * C.stride[0] + gcol;\n'
            s += ind + '    if (gcol + 8 <= C.shape[1]) *reinterpret_cast<uint4*>(dst) = v;\n'
            s += ind + '    else { const __nv_bfloat16* e = reinterpret_cast<const __nv_bfloat16*>(&v); for (int q = 0; q < C.shape[1] - gcol; ++q) dst[q] = e[q]; }\n'
            s += ind + '  }\n'
        s += ind + '} else ' + m.group(0)[len(ind):]
        return s
    tma2, n = store_re.subn(repl, tma)
    if n: edited.append(head)
    out += [head, pre + sep + tma2]
open(sys.argv[2], 'w').write(''.join(out))
print(sys.argv[2], 'edited:', ', '.join(edited))
