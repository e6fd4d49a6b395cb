#!/usr/bin/env bash
# gba_tmc.sh EXAMPLE.loom OUT.loom: examples/gemm_bias_act (GELU) with the transposed variants of
# bench/results/2026-12-02-h200-transposed/gba_variants.loom.part and one more mapping: the transposed 208 x 128
# tiles (4 stages) on 2 x 4 clusters, as examples/gemm's last (A shared in overlapping bands).
set -eu
src=$1 dst=$2
cp "$src" "$dst"
echo "" >> "$dst"
cat bench/results/2026-12-02-h200-transposed/gba_variants.loom.part >> "$dst"
cat >> "$dst" <<'LOOM'

mapping sm_90a when(fastest) {
  instance host = gemm_bias_act_host on HOST mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(U=208, V=128)
      call(gemm_bias_act: block) entry(T=bf16, E=bf16);
  instance block = gemm_bias_act_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(W=64)
      call(gemm: gemm_tile, clear: clear_tile, bias_act: act_tile) warpspecialize pipeline(4)
      multicast(2, 4) smem(227KB);
  instance gemm_tile = gemm_tile_t on BLOCK mem(NONE, SHARED, SHARED) tune(G=2) call(gemm: gemm_wg)
      layout(A: row_major swizzle128, B: row_major swizzle128);
  instance gemm_wg = gemm_mma_t on WARPGROUP mem(NONE, SHARED, SHARED) tune(N_MMA=208)
      call(gemm: gemm_warp);
  instance gemm_warp = gemm_mma_t on WARP mem(NONE, SHARED, SHARED) tune(N_MMA=208)
      call(gemm: gemm_thread);
  instance gemm_thread = gemm_thread on THREAD mem(REGISTER, SHARED, SHARED);
  instance clear_tile = clear_tile_t on BLOCK mem(NONE) tune(G=2) call(clear: clear_wg);
  instance clear_wg = clear_mma_t on WARPGROUP mem(NONE) tune(N_MMA=208) call(clear: clear_warp);
  instance clear_warp = clear_mma_t on WARP mem(NONE) tune(N_MMA=208) call(clear: clear_thread);
  instance clear_thread = clear_thread on THREAD mem(REGISTER);
  instance act_tile = bias_act_tile_t on BLOCK mem(GLOBAL, NONE, GLOBAL) tune(G=2)
      call(bias_act: act_wg);
  instance act_wg = bias_act_mma_t on WARPGROUP mem(GLOBAL, NONE, GLOBAL) tune(N_MMA=208)
      call(bias_act: act_warp);
  instance act_warp = bias_act_mma_t on WARP mem(GLOBAL, NONE, GLOBAL) tune(N_MMA=208)
      call(bias_act: act_thread);
  instance act_thread = bias_gelu_thread on THREAD mem(GLOBAL, REGISTER, GLOBAL);
}
LOOM
