#!/usr/bin/env bash
# candidates.sh EXAMPLE.loom OUT.loom: examples/gemm with split-K on transposed tiles (and on the one-warpgroup 64 x 128
# tile) appended as when(fastest) mappings 23..: for the single-wave, long-K shapes below 0.90x on the H100, where
# examples/gemm's split candidates are all 128-row tiles (M = 77: 128-row tiles are 40% empty).
set -eu
src=$1 dst=$2
cp "$src" "$dst"
echo "" >> "$dst"
echo "// Session 44 candidates (bench/results/2026-12-05-h100-intake/candidates.sh)." >> "$dst"
tcand() {  # U V W STAGES EXTRA: transposed U x V tiles (G = V / 64 compute warpgroups), W-deep K steps
G=$(( $2 / 64 ))
cat >> "$dst" <<LOOM

mapping sm_90a when(fastest) {
  instance gemm_host = gemm_host on HOST mem(GLOBAL, GLOBAL, GLOBAL) tune(U=$1, V=$2)
      call(gemm: gemm_block) entry(T=bf16, E=bf16);
  instance gemm_block = gemm_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL) tune(W=$3)
      call(gemm: gemm_tile, clear: clear_tile, copy: copy_tile) warpspecialize pipeline($4)
      $5 smem(227KB);
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
eval "$(sed -n '/^cand() {/,/^LOOM$/p' "$(dirname "$0")/../2026-12-02-h200-limits/candidates2.sh"; echo '}')"
tcand 80 64 64 8 "splitk(2)"     # 23
tcand 80 64 64 8 "splitk(4)"     # 24
tcand 80 128 64 6 "splitk(2)"    # 25
tcand 80 128 64 6 "splitk(4)"    # 26
tcand 112 128 64 5 "splitk(2)"   # 27
tcand 144 128 64 4 "splitk(2)"   # 28
cand 64 128 64 6 "splitk(2)"     # 29: examples/gemm's m8 (one compute warpgroup), split
cand 64 128 64 6 "splitk(4)"     # 30
cand 128 128 64 5 "splitk(2)"    # 31: examples/gemm's m3 one stage deeper (the staging tiles give way: stores from registers)
