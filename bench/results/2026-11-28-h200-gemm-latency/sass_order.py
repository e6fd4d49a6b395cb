#!/usr/bin/env python3
"""Where each loom gemm kernel's first TMA load (UTMALDG) sits in its SASS: instruction index out of
the kernel's instructions, from `cuobjdump -sass BINARY` (run on the GPU machine, which has it).
Usage: sass_order.py BINARY"""
import re
import subprocess
import sys

t = subprocess.run(['/usr/local/cuda/bin/cuobjdump', '-sass', sys.argv[1]], capture_output=True, text=True).stdout
for f in re.split(r'\n\s*Function : ', t)[1:]:
    name = f.split('\n', 1)[0]
    if 'gemm_kernel' not in name or 'async_copy' in name:
        continue
    m = re.search(r'_GLOBAL__N_1(\d)mapping(\d+)', name)  # <length>mapping<k>: the length fixes k's digits
    k = m.group(2)[:int(m.group(1)) - 7] if m else '?'
    ins = re.findall(r'/\*([0-9a-f]{4,})\*/\s+([^;]*);', f)
    first = next((i for i, (_, x) in enumerate(ins) if 'UTMALDG' in x), None)
    hgmma = next((i for i, (_, x) in enumerate(ins) if 'HGMMA' in x), None)
    print(f'mapping {k}: {len(ins)} instructions, first UTMALDG at {first}, first HGMMA at {hgmma}')
