#!/usr/bin/env python3
"""Inserts timing probes (LOOM_PROBE(i): one thread stores globaltimer and clock64) into the split-K
TMA kernels (splitk(S)) of a generated gemm.cu, for bench/results/2026-11-28-h200-splitk-latency.
First tile of each block; consumer warpgroup 0's thread 0 unless said otherwise. Slot 15 holds the
block's rank in its cluster.
  0 kernel entry (thread 0), 1 after the setup's cluster_sync (thread 0; since round 4 its cluster_arrive and __syncthreads),
  2 producer issues its first TMA copy, 3 consumer: first stage landed, 4 main loop done,
  5 peer: partial sums stored and arrived on the owner's barrier / owner: every peer's sums are in,
  6 peer: the owner has read them / owner: sums read and added,
  (the tree of splitk.cpp since this round: 5 sender: its sum stored and arrived on the receiver's
  barrier / receiver: the level-0 sum is in; 6 receiver: the last level's sum read and added)
  7 owner: tile's TMA store committed, 8 before the exit cluster_sync (thread 128), 9 after it.
Usage: probe_split.py IN.cu OUT.cu"""
import re
import sys

src = open(sys.argv[1]).read()
parts = re.split(r'(?=^// The TMA kernel\.$)', src, flags=re.M)
out, probed = [parts[0]], []
for k, part in enumerate(parts[1:]):
    end = part.find('\n// Checks every argument')
    kern, rest = part[:end], part[end:]
    if 'splitk_rank' not in kern:
        out.append(part)
        continue
    wg0 = 'tile_iter == 0 && consumer_wg == 0 && loom::rt::thread_in_warpgroup() == 0'
    rules = [
        (r'(extern __shared__ [^\n]*\n)', r'\1  if (threadIdx.x == 0) LOOM_PROBE(0);\n'),
        (r'(\n  (?:loom::rt::cluster_sync\(\);  // every block[^\n]*|loom::rt::cluster_arrive\(\);[^\n]*\n  __syncthreads\(\);)\n)',
         r'\1  if (threadIdx.x == 0) { LOOM_PROBE(1); g_probe[blockIdx.x * 32 + 15] = splitk_rank; }\n'),
        (r'(\n(\s*)(loom::rt::mbarrier::arrive_expect_tx\())',
         r'\n\2if (tile_iter == 0 && v_k == v_k_lo) LOOM_PROBE(2);\n\2\3'),
        (r'(\n(\s*)loom::rt::mbarrier::wait\(&bar_v_e_3[^\n]*\n)',
         r'\1\2if (' + wg0 + r' && v_k == v_k_lo) LOOM_PROBE(3);\n'),
        (r'(\n(\s*)loom::rt::wgmma_wait<0>\(\);\n)', r'\1\2if (' + wg0 + r') LOOM_PROBE(4);\n'),
        (r'(\n(\s*)loom::rt::mbarrier::arrive_peer\(&bar_splitk_ready[^\n]*\n)', r'\1\2if (' + wg0 + r') LOOM_PROBE(5);\n'),
        (r'(\n(\s*)loom::rt::mbarrier::wait_cluster\(&bar_splitk_free[^\n]*\n)', r'\1\2if (' + wg0 + r') LOOM_PROBE(6);\n'),
        (r'(\n(\s*)loom::rt::mbarrier::wait_cluster\(&bar_splitk_ready[^\n]*\n)', r'\1\2if (' + wg0 + r') LOOM_PROBE(5);\n'),
        (r'(\n(\s*)if \(p != static_cast<int>\(splitk_rank\)\) loom::rt::mbarrier::arrive_peer\(&bar_splitk_free[^\n]*\n)',
         r'\1\2if (' + wg0 + r') LOOM_PROBE(6);\n'),
        (r'(\n(\s*)loom::rt::tma_store_commit\(\);\n)', r'\1\2if (tile_iter == 0 && consumer_wg == 0) LOOM_PROBE(7);\n'),
        (r'(\n  )(loom::rt::cluster_sync\(\);  // splitk: the cluster[^\n]*\n)',
         r'\1if (threadIdx.x == 128) LOOM_PROBE(8);\n  \2  if (threadIdx.x == 128) LOOM_PROBE(9);\n'),
    ]
    if 'splitk_place' in kern:  # the tree
        rules = rules[:5] + [
            (r'(\n(\s*)loom::rt::mbarrier::arrive_peer\(&bar_splitk_ready[^\n]*\n)', r'\1\2if (' + wg0 + r') LOOM_PROBE(5);\n'),
            (r'(\n(\s*)loom::rt::mbarrier::wait_cluster\(&bar_splitk_ready[^\n]*\n)', r'\1\2if (' + wg0 + r' && l == 0) LOOM_PROBE(5);\n'),
            (r'(\n(\s*)loom::rt::mbarrier::arrive_peer\(&bar_splitk_free[^\n]*\n)', r'\1\2if (' + wg0 + r') LOOM_PROBE(6);\n'),
        ] + rules[9:]
    new = kern
    for pat, rep in rules:
        new, c = re.subn(pat, rep, new, count=1)
        if c != 1:
            sys.exit(f'probe_split: kernel {k}: no match for {pat[:60]}')
    probed.append(k)
    out.append(new + rest)
open(sys.argv[2], 'w').write(''.join(out))
print(f'probe_split: split kernels probed {probed}', file=sys.stderr)
