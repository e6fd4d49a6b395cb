# trace.py IN.cu OUT.cu: a copy of a generated stream-K gemm.cu (a single-mapping program) whose first compute
# warpgroup's thread 0 records, per turn of its persistent loop, the tile, the turn's iterations
# [k_lo, k_hi) and %globaltimer at four points: after the accumulator is cleared (begin), after the K loop's
# wgmmas are drained (loop end), after the stream-K hand-over (hand end) and after the epilogue (end), into
# the device array lt_trace[block][turn][8]; the launcher passes sk_tiles = 0 (every tile whole, the same
# kernel in waves) when LOOM_SK_DP is set. Timing only: not a kernel to keep.
import sys
src, dst = sys.argv[1], sys.argv[2]
s = open(src).read()
def sub(old, new, count):
    global s
    n = s.count(old)
    assert n == count, (old, n)
    s = s.replace(old, new)
head = '''#include <cstdlib>
__device__ unsigned long long lt_trace[256][16][8];
__device__ __forceinline__ unsigned long long lt_now() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
#define LT_REC(f, v) do { if (consumer_wg == 0 && loom::rt::thread_in_warpgroup() == 0 && tile_iter < 16) lt_trace[blockIdx.x][tile_iter][f] = (v); } while (0)
'''
i = s.index('namespace {')
s = s[:i] + head + s[i:]
import re
clear = re.search(r'      for \(int r = 0; r < \d+; \+\+r\) v_C_1\[r\] = v_5;\n', s).group(0)
sub(clear,
    clear + '      LT_REC(0, tile); LT_REC(1, unit_lo); LT_REC(2, loom_min(unit_hi, loom_cdiv(A.shape[1], 64))); LT_REC(3, lt_now());\n', 2)
sub('      loom::rt::wgmma_wait<0>();\n      loom::rt::wgmma_fence_operand(v_C_1);\n',
    '      loom::rt::wgmma_wait<0>();\n      loom::rt::wgmma_fence_operand(v_C_1);\n      LT_REC(4, lt_now());\n', 2)
sub('      if (sk_first) {  // the rest of the tile: its first turn only\n',
    '      LT_REC(5, lt_now());\n      if (sk_first) {  // the rest of the tile: its first turn only\n', 2)
sub('      ++tile_iter;\n    }\n    if (loom::rt::thread_in_warpgroup() == 0) loom::rt::tma_store_wait<0>();',
    '      LT_REC(6, lt_now()); LT_REC(7, 1);\n      ++tile_iter;\n    }\n    if (loom::rt::thread_in_warpgroup() == 0) loom::rt::tma_store_wait<0>();', 1)
sub('sk_plan.sk_tiles, sk_iters, sk_ws.epoch', '(std::getenv("LOOM_SK_DP") ? 0 : sk_plan.sk_tiles), sk_iters, sk_ws.epoch', 2)
open(dst, 'w').write(s)
