#!/usr/bin/env bash
# candidates.sh EXAMPLE.loom OUT.loom: examples/gemm with the transposed-mma variants (each warpgroup takes 64 of the
# tile's columns and runs the wgmma on C^T = B^T A^T, so the wgmma's n covers the tile's M extent) and transposed
# candidates appended as when(fastest) mappings 15..: tiles U x V (M x N), V / 64 warpgroups unless given, U = the wgmma's n.
set -eu
src=$1 dst=$2
here=$(dirname "$0")
cp "$src" "$dst"
echo "" >> "$dst"
echo "// Session 31 candidates (bench/results/2026-12-02-h200-transposed/candidates.sh): the transposed mma." >> "$dst"
cat "$here/variants.loom.part" >> "$dst"
cand() {  # U V STAGES [G]
G=${4:-$(( $2 / 64 ))}
cat >> "$dst" <<LOOM

mapping sm_90a when(fastest) {
  instance gemm_host = gemm_host on HOST mem(GLOBAL, GLOBAL, GLOBAL) tune(U=$1, V=$2)
      call(gemm: gemm_block) entry(T=bf16, E=bf16);
  instance gemm_block = gemm_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL) tune(W=64)
      call(gemm: gemm_tile, clear: clear_tile, copy: copy_tile) warpspecialize pipeline($3)
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
  instance copy_tile = copy_tile_t on BLOCK mem(GLOBAL, NONE) tune(G=$G) call(copy: copy_wg);
  instance copy_wg = copy_mma_t on WARPGROUP mem(GLOBAL, NONE) tune(N_MMA=$1) call(copy: copy_warp);
  instance copy_warp = copy_mma_t on WARP mem(GLOBAL, NONE) tune(N_MMA=$1) call(copy: copy_thread);
  instance copy_thread = copy_thread on THREAD mem(GLOBAL, REGISTER);
}
LOOM
}
cand 48 128 8    # 15
cand 80 128 6    # 16
cand 112 128 6   # 17
cand 144 128 5   # 18
cand 176 128 4   # 19
cand 208 128 3   # 20
cand 240 128 3   # 21
cand 80 64 8     # 22
cand 144 256 3 2 # 23: two warpgroups of 128 columns
