#!/usr/bin/env bash
# add_gemm_tmc.sh EXAMPLE.loom OUT.loom: examples/add_gemm with examples/gemm's transposed variants (gemm_tile_t,
# gemm_mma_t, clear_*_t, copy_*_t: add_gemm uses the same gemm / clear / copy tasks) and one more mapping: the
# transposed 208 x 128 tiles (4 stages) on 2 x 4 clusters, as examples/gemm's and gemm_bias_act's last.
set -eu
python3 - "$1" "$2" <<'PY'
import sys
src = open(sys.argv[1]).read()
g = open("examples/gemm/gemm.loom").read()
a = g.index("// The transposed form"); b = g.index("mapping sm_90a {", a)
variants = g[a:b].rstrip("\n") + "\n\n"
at = src.index("mapping sm_90a {")
src = src[:at] + variants + src[at:]
src = src.rstrip("\n") + """

mapping sm_90a when(fastest) {
  instance add_gemm_host = add_gemm_host on HOST mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL, GLOBAL)
      tune(U=208, V=128) call(add_gemm: add_gemm_block) entry(T=bf16, S=bf16);
  instance add_gemm_block = add_gemm_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL, GLOBAL)
      tune(W=64) call(gemm: gemm_tile, clear: clear_tile, copy: copy_tile) warpspecialize
      pipeline(4) multicast(2, 4) smem(227KB);
  instance gemm_tile = gemm_tile_t on BLOCK mem(NONE, SHARED, SHARED) tune(G=2) call(gemm: gemm_wg)
      layout(A: row_major swizzle128, B: row_major swizzle128);
  instance gemm_wg = gemm_mma_t on WARPGROUP mem(NONE, SHARED, SHARED) tune(N_MMA=208)
      call(gemm: gemm_warp);
  instance gemm_warp = gemm_mma_t on WARP mem(NONE, SHARED, SHARED) tune(N_MMA=208)
      call(gemm: gemm_thread);
  instance clear_tile = clear_tile_t on BLOCK mem(NONE) tune(G=2) call(clear: clear_wg);
  instance clear_wg = clear_mma_t on WARPGROUP mem(NONE) tune(N_MMA=208) call(clear: clear_warp);
  instance clear_warp = clear_mma_t on WARP mem(NONE) tune(N_MMA=208) call(clear: clear_thread);
  instance copy_tile = copy_tile_t on BLOCK mem(GLOBAL, NONE) tune(G=2) call(copy: copy_wg);
  instance copy_wg = copy_mma_t on WARPGROUP mem(GLOBAL, NONE) tune(N_MMA=208) call(copy: copy_warp);
  instance copy_warp = copy_mma_t on WARP mem(GLOBAL, NONE) tune(N_MMA=208) call(copy: copy_thread);
}
"""
open(sys.argv[2], "w").write(src)
PY
