#!/usr/bin/env bash
# candidates4.sh EXAMPLE.loom OUT.loom: the committed examples/gemm (23 mappings) + two transposed split-K candidates as
# when(fastest) mappings 23, 24: 48 x 64 (one warpgroup, n = 48) splitk(4) and 80 x 64 splitk(2), 8 stages of 64-deep K steps.
set -eu
src=$1 dst=$2
cp "$src" "$dst"
cand() {  # U V STAGES SPLIT
cat >> "$dst" <<LOOM

mapping sm_90a when(fastest) {
  instance gemm_host = gemm_host on HOST mem(GLOBAL, GLOBAL, GLOBAL) tune(U=$1, V=$2)
      call(gemm: gemm_block) entry(T=bf16, E=bf16);
  instance gemm_block = gemm_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL) tune(W=64)
      call(gemm: gemm_tile, clear: clear_tile, copy: copy_tile) warpspecialize pipeline($3)
      splitk($4) smem(227KB);
  instance gemm_tile = gemm_tile_t on BLOCK mem(NONE, SHARED, SHARED) tune(G=1) call(gemm: gemm_wg)
      layout(A: row_major swizzle128, B: row_major swizzle128);
  instance gemm_wg = gemm_mma_t on WARPGROUP mem(NONE, SHARED, SHARED) tune(N_MMA=$1)
      call(gemm: gemm_warp);
  instance gemm_warp = gemm_mma_t on WARP mem(NONE, SHARED, SHARED) tune(N_MMA=$1)
      call(gemm: gemm_thread);
  instance gemm_thread = gemm_thread on THREAD mem(REGISTER, SHARED, SHARED);
  instance clear_tile = clear_tile_t on BLOCK mem(NONE) tune(G=1) call(clear: clear_wg);
  instance clear_wg = clear_mma_t on WARPGROUP mem(NONE) tune(N_MMA=$1) call(clear: clear_warp);
  instance clear_warp = clear_mma_t on WARP mem(NONE) tune(N_MMA=$1) call(clear: clear_thread);
  instance clear_thread = clear_thread on THREAD mem(REGISTER);
  instance copy_tile = copy_tile_t on BLOCK mem(GLOBAL, NONE) tune(G=1) call(copy: copy_wg);
  instance copy_wg = copy_mma_t on WARPGROUP mem(GLOBAL, NONE) tune(N_MMA=$1) call(copy: copy_warp);
  instance copy_warp = copy_mma_t on WARP mem(GLOBAL, NONE) tune(N_MMA=$1) call(copy: copy_thread);
  instance copy_thread = copy_thread on THREAD mem(GLOBAL, REGISTER);
}
LOOM
}
cand 48 64 8 4
cand 80 64 8 2
