#!/usr/bin/env bash
# candidates2.sh EXAMPLE.loom OUT.loom: examples/gemm with three tiles of 64-multiple widths whose B tile takes a
# narrower swizzle (so that, unlike candidates.sh's, they store through the staging tile as the 128-byte ones do):
# 15: 128 x 192 swizzle64, 16: 128 x 192 swizzle32 (as mapping 6 but for the swizzle; 4 stages), 17: 128 x 256
# swizzle64 (as mapping 0: 3 stages). Isolates what a narrow B swizzle costs from what an unstaged store costs.
set -eu
src=$1 dst=$2
cp "$src" "$dst"
cand() {  # V SWIZZLE STAGES
cat >> "$dst" <<LOOM

mapping sm_90a when(fastest) {
  instance gemm_host = gemm_host on HOST mem(GLOBAL, GLOBAL, GLOBAL) tune(U=128, V=$1)
      call(gemm: gemm_block) entry(T=bf16, E=bf16);
  instance gemm_block = gemm_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL) tune(W=64)
      call(gemm: gemm_tile, clear: clear_tile, copy: copy_tile) warpspecialize pipeline($3)
      smem(227KB);
  instance gemm_tile = gemm_tile on BLOCK mem(NONE, SHARED, SHARED) tune(G=2) call(gemm: gemm_wg)
      layout(A: row_major swizzle128, B: row_major $2);
  instance gemm_wg = gemm_mma on WARPGROUP mem(NONE, SHARED, SHARED) tune(N_MMA=$1)
      call(gemm: gemm_warp);
  instance gemm_warp = gemm_mma on WARP mem(NONE, SHARED, SHARED) tune(N_MMA=$1)
      call(gemm: gemm_thread);
  instance clear_wg = clear_mma on WARPGROUP mem(NONE) tune(N_MMA=$1) call(clear: clear_warp);
  instance clear_warp = clear_mma on WARP mem(NONE) tune(N_MMA=$1) call(clear: clear_thread);
  instance copy_wg = copy_mma on WARPGROUP mem(GLOBAL, NONE) tune(N_MMA=$1) call(copy: copy_warp);
  instance copy_warp = copy_mma on WARP mem(GLOBAL, NONE) tune(N_MMA=$1) call(copy: copy_thread);
}
LOOM
}
echo "" >> "$dst"
echo "// Session 30 candidates (bench/results/2026-12-02-h200-gemm-widths/candidates2.sh): narrow B swizzles, staged stores." >> "$dst"
cand 192 swizzle64 4
cand 192 swizzle32 4
cand 256 swizzle64 3
