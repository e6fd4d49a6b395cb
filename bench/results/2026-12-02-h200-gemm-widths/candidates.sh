#!/usr/bin/env bash
# candidates.sh EXAMPLE.loom OUT.loom: examples/gemm with five tile widths that are not multiples of 64 appended as
# when(fastest) mappings 15-19, each B tile in the narrower swizzle its width allows (64-byte: multiples of 32
# columns; 32-byte: multiples of 16): 128 x 96, 128 x 160, 128 x 224 (swizzle64), 128 x 176, 128 x 208 (swizzle32).
# Two compute warpgroups, 64-deep K steps, 4 stages. Their epilogue stores from registers (the staged
# TMA store takes whole 64-column slices).
set -eu
src=$1 dst=$2
cp "$src" "$dst"
cand() {  # V SWIZZLE
cat >> "$dst" <<LOOM

mapping sm_90a when(fastest) {
  instance gemm_host = gemm_host on HOST mem(GLOBAL, GLOBAL, GLOBAL) tune(U=128, V=$1)
      call(gemm: gemm_block) entry(T=bf16, E=bf16);
  instance gemm_block = gemm_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL) tune(W=64)
      call(gemm: gemm_tile, clear: clear_tile, copy: copy_tile) warpspecialize pipeline(4)
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
echo "// Session 30 candidates (bench/results/2026-12-02-h200-gemm-widths/candidates.sh): widths off the 64-column grid." >> "$dst"
cand 96 swizzle64
cand 160 swizzle64
cand 224 swizzle64
cand 176 swizzle32
cand 208 swizzle32
