#!/usr/bin/env python3
"""Inserts timing probes (LOOM_PROBE(i): one thread stores clock64 and globaltimer) into the
persistent TMA kernels of a generated gemm.cu, for bench/results/2026-11-28-h200-gemm-latency.
Probes, first tile of each block only:
  0 kernel entry, 1 after the setup barrier, 7 producer after its setmaxnreg, 8 the elected
  producer thread's first step, 9 its tile decoded (before the K loop),
  2 producer issues its first TMA copy,
  3 consumer warpgroup 0 sees its first stage landed, 4 its main loop done (wgmma_wait<0>),
  5 its first tile's TMA store committed, 6 after its last store's wait (the end of the kernel).
A kernel whose markers are not all found is left as it is (listed on stderr).
Usage: probe_insert.py IN.cu OUT.cu"""
import re
import sys

src = open(sys.argv[1]).read()
parts = re.split(r'(?=^// The TMA kernel\.$)', src, flags=re.M)
out, probed, skipped = [parts[0]], [], []
for k, part in enumerate(parts[1:]):
    end = part.find('\n// Checks every argument')
    kern, rest = part[:end], part[end:]
    first_tile = 'tile == blockIdx.x'
    wg0 = 'consumer_wg == 0 && loom::rt::thread_in_warpgroup() == 0'
    rules = [
        (r'(extern __shared__ [^\n]*\n)', r'\1  if (threadIdx.x == 0) LOOM_PROBE(0);\n', 1),
        (r'(\n  __syncthreads\(\);\n)', r'\1  if (threadIdx.x == 0) LOOM_PROBE(1);\n', 1),
        (r'(\n(\s*)loom::rt::setmaxnreg_dec<[^\n]*\n)', r'\1\2if (threadIdx.x == 0) LOOM_PROBE(7);\n', 1),
        (r'(\n(\s*)if \(loom::rt::warpgroup_index\(\) == 0 && loom::rt::warp_in_warpgroup\(\) == 0 && loom::rt::elect_one_sync\(\)\) \{\n)',
         r'\1\2  LOOM_PROBE(8);\n', 1),
        (r'(\n(\s*)(for \(int64_t v_k = 0;))', r'\n\2if (' + first_tile + r') LOOM_PROBE(9);\n\2\3', 1),
        (r'(\n(\s*)(loom::rt::mbarrier::arrive_expect_tx\())',
         r'\n\2if (' + first_tile + r' && v_k == 0) LOOM_PROBE(2);\n\2\3', 1),
        (r'(\n(\s*)loom::rt::mbarrier::wait\(&bar_v_e_3[^\n]*\n)',
         r'\1\2if (' + first_tile + r' && v_k == 0 && ' + wg0 + r') LOOM_PROBE(3);\n', 1),
        (r'(\n(\s*)loom::rt::wgmma_wait<0>\(\);\n)',
         r'\1\2if (' + first_tile + r' && ' + wg0 + r') LOOM_PROBE(4);\n', 1),
        (r'(\n(\s*)loom::rt::tma_store_commit\(\);\n)',
         r'\1\2if (' + first_tile + r' && consumer_wg == 0) LOOM_PROBE(5);\n', 1),
        (r'(\n(\s*)if \(loom::rt::thread_in_warpgroup\(\) == 0\) loom::rt::tma_store_wait<0>\(\);  // the last stores[^\n]*\n)',
         r'\1\2if (' + wg0 + r') LOOM_PROBE(6);\n', 1),
    ]
    new, ok = kern, True
    for pat, rep, n in rules:
        new, c = re.subn(pat, rep, new, count=n)
        ok &= c == n
    ok &= 'consumer_wg' in kern and 'v_k' in kern
    if ok:
        probed.append(k)
        out.append(new + rest)
    else:
        skipped.append(k)
        out.append(part)
open(sys.argv[2], 'w').write(''.join(out))
print(f'probe_insert: kernels probed {probed}, left as they are {skipped}', file=sys.stderr)
