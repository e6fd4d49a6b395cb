# Session 52 experiment (not the compiler): each TMA kernel's producer also asks L2 to prefetch the boxes
# of the K step one ring depth ahead of the one it loads (cp.async.bulk.prefetch.tensor), within the tile.
import re, sys
src = open(sys.argv[1]).read()
helper = r'''
__device__ __forceinline__ void s52_prefetch_2d(const CUtensorMap* map, int32_t c0, int32_t c1) {
  asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1) : "memory");
}
'''
# after the includes: before the first namespace mapping
i = src.index("namespace mapping0 {")
src = src[:i] + helper + "\n" + src[i:]
out, pos, n = [], 0, 0
for m in re.finditer(r"// The TMA kernel\.\n(.*?)\nint launch_", src, re.S):
    body = m.group(1)
    kvars = set(re.findall(r"const int64_t (v_\w+) = 0 \+ \(v_k \* v_c\d+\);", body))
    depth = re.search(r"pipelined (\d+) deep", body)
    if not kvars or not depth or "v_k_lo" in body:
        continue
    R = int(depth.group(1))
    lines = body.split("\n"); new = []
    for l in lines:
        new.append(l)
        mm = re.match(r"(\s*)loom::rt::tma_load_2d(?:_multicast)?\(.*?, &(tm_\w+), &bar_\w+\[.*?\](?:, 0x[0-9a-f]+)?, (static_cast<int32_t>\(.*\)), (static_cast<int32_t>\(.*\))\);$", l)
        if mm:
            ind, tm, c0, c1 = mm.groups()
            kv = [v for v in kvars if re.search(r"\b" + v + r"\b", c0 + c1)]
            if len(kv) != 1: continue
            v = kv[0]
            c0p = re.sub(r"\b" + v + r"\b", "(" + v + " + " + str(R * 64) + ")", c0)
            c1p = re.sub(r"\b" + v + r"\b", "(" + v + " + " + str(R * 64) + ")", c1)
            pf = "if (v_k + %d < v_6) s52_prefetch_2d(&%s, %s, %s);" % (R, tm, c0p, c1p)
            if len(new) >= 2 and new[-2].strip().startswith("for ("):
                new[-1] = ind + "{ " + l.strip() + " " + pf + " }"
            else:
                new.append(ind + pf)
            n += 1
    out.append(src[pos:m.start(1)]); out.append("\n".join(new)); pos = m.end(1)
out.append(src[pos:])
open(sys.argv[2], "w").write("".join(out))
print("prefetches added:", n)
