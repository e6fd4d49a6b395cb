#!/usr/bin/env bash
# candidates3.sh EXAMPLE.loom OUT.loom (from 2026-12-02-h200-limits/candidates2.sh): examples/gemm with plain (untransposed) candidate tiles appended as when(fastest)
# mappings 23..: U x V tiles (M x N), G compute warpgroups of 64 rows, W-deep K steps, STAGES ring slots, EXTRA options.
set -eu
src=$1 dst=$2
cp "$src" "$dst"
echo "" >> "$dst"
echo "// Session 40 candidates (bench/results/2026-12-05-h200-release/candidates3.sh): multicast(S, T) with cuBLAS's tile and cluster shapes." >> "$dst"
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
cand 64 128 64 8 "multicast(4, 2)"   # 23: cuBLAS's at 487x1688x7536 (nvjet_sm90_tst_64x128_64x8_4x2: 64 x 128 tiles, 64-deep K steps, 8 stages, 4 x 2 clusters)
cand 64 128 64 8 "multicast(2, 4)"   # 24: the same tile, 2 x 4 clusters
cand 128 128 64 5 "multicast(4, 2)"  # 25: 128 x 128 on 4 x 2
cand 128 256 64 4 "multicast(2, 2)"  # 26: 128 x 256 on 2 x 2 (examples/gemm's m10 is the same tile on multicast(2))
cand 128 64 64 8 "multicast(4, 2)"   # 27: round 1's m24 (128 x 64 on 4 x 2)
cand 64 128 64 8 "multicast(2, 2)"   # 28: round 1's m27 (64 x 128 on 2 x 2)
