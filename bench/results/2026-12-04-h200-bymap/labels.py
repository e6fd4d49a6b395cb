#!/usr/bin/env python3
"""labels.py FILE.loom: one line per mapping of the program, in the order loom numbers them (the default,
then the when(...) mappings in file order): the tile U x V, transposed, pipeline depth and the block options."""
import re
import sys

text = open(sys.argv[1]).read()
blocks = re.split(r"\nmapping sm_90a", text)[1:]
default = None
for b in blocks:
    body = b[: b.find("\n}")]
    uv = re.search(r"tune\(U=(\d+), V=(\d+)\)", body)
    tile = "%sx%s" % uv.groups() if uv else "128x256"
    opts = []
    if "_t on BLOCK" in body:
        opts.append("transposed")
    for o in ("pipeline", "multicast", "splitk", "alternate", "streamk"):
        m = re.search(r"\b%s\(([\d, ]+)\)" % o, body)
        if m:
            opts.append("%s(%s)" % (o, m.group(1)))
    print(tile + (" " + " ".join(opts) if opts else ""))
