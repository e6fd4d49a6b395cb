#!/usr/bin/env python3
"""hoist.py IN.cu OUT.cu: an experiment on a generated gemm_bias_act (not a compiler change): every
kernel's epilogue bias load (the declarations and loom::rt::ldg_col_pairs of the block "global inputs of
`add`, read once per tile") moved to the tile's start in the consumer role, just before its K loop, so
that the loads' latency passes under the main loop instead of after it. Nothing else changes."""
import re
import sys

lines = open(sys.argv[1]).read().split("\n")
out = list(lines)
moved = 0
i = 0
while i < len(out):
    if "global inputs of `add`, read once per tile" in out[i]:
        j = i + 1
        block = []
        while j < len(out) and "ldg_col_pairs" not in out[j]:
            block.append(out[j])
            j += 1
        if j == len(out):
            break
        block.append(out[j])
        # the consumer's K loop: the nearest earlier "srange k" comment line
        k = i
        while k >= 0 and not re.search(r"// block: srange k in", out[k]):
            k -= 1
        if k < 0:
            i += 1
            continue
        indent = re.match(r"\s*", out[k]).group(0)
        del out[i + 1: j + 1]
        out[k:k] = [indent + "// (hoisted) " + "bias loads of the epilogue, issued before the K loop"] + [indent + b.strip() for b in block]
        moved += 1
        i = i + len(block) + 2
    else:
        i += 1
open(sys.argv[2], "w").write("\n".join(out))
print("moved %d bias loads" % moved, file=sys.stderr)
