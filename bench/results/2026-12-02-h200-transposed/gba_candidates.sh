#!/usr/bin/env bash
# gba_candidates.sh EXAMPLE.loom OUT.loom: examples/gemm_bias_act with the transposed variants (gba_variants.loom.part)
# and examples/gemm's eight transposed tiles appended as when(fastest) mappings 13-20 (U x V, V / 64 warpgroups).
set -eu
src=$1 dst=$2
here=$(dirname "$0")
cp "$src" "$dst"
echo "" >> "$dst"
cat "$here/gba_variants.loom.part" >> "$dst"
cand() {  # U V STAGES
G=$(( $2 / 64 ))
cat >> "$dst" <<LOOM

mapping sm_90a when(fastest) {
  instance host = gemm_bias_act_host on HOST mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(U=$1, V=$2)
      call(gemm_bias_act: block) entry(T=bf16, E=bf16);
  instance block = gemm_bias_act_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(W=64)
      call(gemm: gemm_tile, clear: clear_tile, bias_act: act_tile) warpspecialize pipeline($3)
      smem(227KB);
  instance gemm_tile = gemm_tile_t on BLOCK mem(NONE, SHARED, SHARED) tune(G=$G) call(gemm: gemm_wg)
      layout(A: row_major swizzle128, B: row_major swizzle128);
  instance gemm_wg = gemm_mma_t on WARPGROUP mem(NONE, SHARED, SHARED) tune(N_MMA=$1)
      call(gemm: gemm_warp);
  instance gemm_warp = gemm_mma_t on WARP mem(NONE, SHARED, SHARED) tune(N_MMA=$1)
      call(gemm: gemm_thread);
  instance gemm_thread = gemm_thread on THREAD mem(REGISTER, SHARED, SHARED);
  instance clear_tile = clear_tile_t on BLOCK mem(NONE) tune(G=$G) call(clear: clear_wg);
  instance clear_wg = clear_mma_t on WARPGROUP mem(NONE) tune(N_MMA=$1) call(clear: clear_warp);
  instance clear_warp = clear_mma_t on WARP mem(NONE) tune(N_MMA=$1) call(clear: clear_thread);
  instance clear_thread = clear_thread on THREAD mem(REGISTER);
  instance act_tile = bias_act_tile_t on BLOCK mem(GLOBAL, NONE, GLOBAL) tune(G=$G)
      call(bias_act: act_wg);
  instance act_wg = bias_act_mma_t on WARPGROUP mem(GLOBAL, NONE, GLOBAL) tune(N_MMA=$1)
      call(bias_act: act_warp);
  instance act_warp = bias_act_mma_t on WARP mem(GLOBAL, NONE, GLOBAL) tune(N_MMA=$1)
      call(bias_act: act_thread);
  instance act_thread = bias_gelu_thread on THREAD mem(GLOBAL, REGISTER, GLOBAL);
}
LOOM
}
cand 48 128 8
cand 80 128 6
cand 112 128 6
cand 144 128 5
cand 176 128 4
cand 208 128 3
cand 240 128 3
cand 80 64 8
