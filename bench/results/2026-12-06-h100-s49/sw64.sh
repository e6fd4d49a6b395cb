#!/usr/bin/env bash
# Session 49: examples/gemm (IN.loom, 28 mappings) with four untransposed tiles whose width is off the 64-column
# (128-byte) swizzle atom, B laid out with the 64-byte swizzle (32-column boxes, `layout(B: row_major swizzle64)`)
# so that the tile loads exactly its columns (with the 128-byte swizzle a 96-wide tile loads two 64-column boxes).
# cuBLAS's NNN kernels (the wgmma's 64-row side along our M) use such widths where loom trails it most
# (2026-12-02-h200-peer-kernels.md): 505x2856x1048 96 (N) x 128 (M) on 2 x 4 (our multicast(4, 2)),
# 4959x800x776 160 x 192 on 1 x 2 (our multicast(2)), 3968x864x384 224 x 128 on 1 x 2.
# Candidates: U x V, G compute warpgroups, stages, multicast.
set -eu
in=$1; out=$2
python3 - "$in" "$out" <<'PY'
import sys
src = open(sys.argv[1]).read()
add = ""
for U, V, G, P, mc in ((128, 96, 2, 6, "multicast(4, 2) "), (192, 160, 3, 3, "multicast(2) "), (128, 224, 2, 4, "multicast(2) "),
                       (128, 160, 2, 4, "")):
    add += f"""
mapping sm_90a when(fastest) {{
  instance gemm_host = gemm_host on HOST mem(GLOBAL, GLOBAL, GLOBAL) tune(U={U}, V={V})
      call(gemm: gemm_block) entry(T=bf16, E=bf16);
  instance gemm_block = gemm_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL) tune(W=64)
      call(gemm: gemm_tile, clear: clear_tile, copy: copy_tile) warpspecialize pipeline({P})
      {mc}smem(227KB);
  instance gemm_tile = gemm_tile on BLOCK mem(NONE, SHARED, SHARED) tune(G={G}) call(gemm: gemm_wg)
      layout(A: row_major swizzle128, B: row_major swizzle64);
  instance clear_tile = clear_tile on BLOCK mem(NONE) tune(G={G}) call(clear: clear_wg);
  instance copy_tile = copy_tile on BLOCK mem(GLOBAL, NONE) tune(G={G}) call(copy: copy_wg);
  instance gemm_wg = gemm_mma on WARPGROUP mem(NONE, SHARED, SHARED) tune(N_MMA={V})
      call(gemm: gemm_warp);
  instance gemm_warp = gemm_mma on WARP mem(NONE, SHARED, SHARED) tune(N_MMA={V})
      call(gemm: gemm_thread);
  instance clear_wg = clear_mma on WARPGROUP mem(NONE) tune(N_MMA={V}) call(clear: clear_warp);
  instance clear_warp = clear_mma on WARP mem(NONE) tune(N_MMA={V}) call(clear: clear_thread);
  instance copy_wg = copy_mma on WARPGROUP mem(GLOBAL, NONE) tune(N_MMA={V}) call(copy: copy_warp);
  instance copy_warp = copy_mma on WARP mem(GLOBAL, NONE) tune(N_MMA={V}) call(copy: copy_thread);
}}
"""
open(sys.argv[2], "w").write(src.rstrip("\n") + "\n" + add)
PY
