# Session 52 experiment (not the compiler): every TMA kernel's full barriers of one K step merged into one
# (one arrive_expect_tx with the step's bytes, every load completing on it, one consumer wait).
import re, sys
src = open(sys.argv[1]).read()
out, pos, n = [], 0, 0
for m in re.finditer(r"// The TMA kernel\.\n(.*?)\nint launch_", src, re.S):
    body = m.group(1)
    lines = body.split("\n")
    exp = [i for i, l in enumerate(lines) if "arrive_expect_tx(&bar_" in l]
    names = []
    for i in exp:
        nm = re.search(r"arrive_expect_tx\(&(bar_\w+)\[", lines[i]).group(1)
        if nm not in names: names.append(nm)
    if len(names) < 2:
        continue
    P, Qs = names[0], names[1:]
    # producer: fold each Q expect into the nearest preceding P expect
    last_p = None
    drop = set()
    for i in exp:
        nm = re.search(r"arrive_expect_tx\(&(bar_\w+)\[", lines[i]).group(1)
        if nm == P:
            last_p = i
        else:
            mq = re.search(r"arrive_expect_tx\(&bar_\w+\[(.*?)\], (\d+)\);", lines[i])
            mp = re.search(r"arrive_expect_tx\(&bar_\w+\[(.*?)\], (\d+)\);", lines[last_p])
            assert mq.group(1) == mp.group(1), (lines[i], lines[last_p])
            tot = int(mp.group(2)) + int(mq.group(2))
            lines[last_p] = lines[last_p][:mp.start(2)] + str(tot) + lines[last_p][mp.end(2):]
            drop.add(i)
    for j, l in enumerate(lines):
        if j in drop: continue
        for q in Qs:
            if "mbarrier::wait(&" + q + "[" in l:
                l = None; break
            if "mbarrier::init" not in l: l = l.replace("&" + q + "[", "&" + P + "[")
        if l is not None: out_line = l
        lines[j] = l
    body2 = "\n".join(l for j, l in enumerate(lines) if j not in drop and l is not None)
    out.append(src[pos:m.start(1)]); out.append(body2); pos = m.end(1); n += 1
out.append(src[pos:])
open(sys.argv[2], "w").write("".join(out))
print("kernels merged:", n)
