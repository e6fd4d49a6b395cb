#!/usr/bin/env bash
# candidates.sh EXAMPLE.loom OUT.loom: examples/gemm with plain (untransposed) candidate tiles appended as when(fastest)
# mappings 23..: U x V tiles (M x N), G compute warpgroups of 64 rows, W-deep K steps, STAGES ring slots, EXTRA options.
set -eu
src=$1 dst=$2
cp "$src" "$dst"
echo "" >> "$dst"
echo "// Session 32 candidates (bench/results/2026-12-02-h200-limits/candidates2.sh): multicast(S, T)." >> "$dst"
cand() {  # U V W STAGES EXTRA
G=$(( $1 / 64 ))
cat >> "$dst" <<LOOM

mapping sm_90a when(fastest) {
  instance gemm_host = gemm_host on HOST mem(GLOBAL, GLOBAL, GLOBAL) tune(U=$1, V=$2)
      call(gemm: gemm_block) entry(T=bf16, E=bf16);
  instance gemm_block = gemm_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL) tune(W=$3)
      call(gemm: gemm_tile, clear: clear_tile, copy: copy_tile) warpspecialize pipeline($4)
      $5 smem(227KB);
  instance gemm_tile = gemm_tile on BLOCK mem(NONE, SHARED, SHARED) tune(G=$G) call(gemm: gemm_wg)
      layout(A: row_major swizzle128, B: row_major swizzle128);
  instance clear_tile = clear_tile on BLOCK mem(NONE) tune(G=$G) call(clear: clear_wg);
  instance copy_tile = copy_tile on BLOCK mem(GLOBAL, NONE) tune(G=$G) call(copy: copy_wg);
  instance gemm_wg = gemm_mma on WARPGROUP mem(NONE, SHARED, SHARED) tune(N_MMA=$2)
      call(gemm: gemm_warp);
  instance gemm_warp = gemm_mma on WARP mem(NONE, SHARED, SHARED) tune(N_MMA=$2)
      call(gemm: gemm_thread);
  instance clear_wg = clear_mma on WARPGROUP mem(NONE) tune(N_MMA=$2) call(clear: clear_warp);
  instance clear_warp = clear_mma on WARP mem(NONE) tune(N_MMA=$2) call(clear: clear_thread);
  instance copy_wg = copy_mma on WARPGROUP mem(GLOBAL, NONE) tune(N_MMA=$2) call(copy: copy_warp);
  instance copy_warp = copy_mma on WARP mem(GLOBAL, NONE) tune(N_MMA=$2) call(copy: copy_thread);
}
LOOM
}
cand 128 64 64 8 "multicast(2, 2)"   # 23: 128 x 64 on 2 x 2 clusters (B shared by the 2 row tiles, A by the 2 column tiles)
cand 128 64 64 8 "multicast(4, 2)"   # 24: cuBLAS's tile and cluster at 487x1688x7536 (nvjet 64x128_64x8_4x2)
cand 128 64 64 8 "multicast(1, 2)"   # 25: A (two thirds of the bytes) shared by 2 column tiles
cand 128 128 64 5 "multicast(2, 2)"  # 26: 128 x 128 on 2 x 2 clusters
cand 64 128 64 8 "multicast(2, 2)"   # 27: 64 x 128 (one compute warpgroup) on 2 x 2 clusters
cand 64 64 64 12 "multicast(2, 2)"   # 28: 64 x 64 on 2 x 2 clusters
