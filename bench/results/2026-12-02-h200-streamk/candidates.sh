#!/usr/bin/env bash
# candidates.sh gemm|gba EXAMPLE.loom OUT.loom: the program (examples/gemm or examples/gemm_bias_act) with two
# stream-K candidates appended as when(fastest) mappings (indices after the program's own): 128 x 256 tiles
# with 3 stages (the default mapping's tiles) and 128 x 128 tiles with 4 stages, `streamk` on the block
# instance.
set -eu
kind=$1 src=$2 dst=$3
cp "$src" "$dst"
if [ "$kind" = gemm ]; then
cat >> "$dst" <<'LOOM'

// Session 29 candidates (bench/results/2026-12-02-h200-streamk/candidates.sh): stream-K.
mapping sm_90a when(fastest) {
  instance gemm_host = gemm_host on HOST mem(GLOBAL, GLOBAL, GLOBAL) tune(U=128, V=256)
      call(gemm: gemm_block) entry(T=bf16, E=bf16);
  instance gemm_block = gemm_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL) tune(W=64)
      call(gemm: gemm_tile, clear: clear_tile, copy: copy_tile) warpspecialize pipeline(3)
      streamk smem(227KB);
}

mapping sm_90a when(fastest) {
  instance gemm_host = gemm_host on HOST mem(GLOBAL, GLOBAL, GLOBAL) tune(U=128, V=128)
      call(gemm: gemm_block) entry(T=bf16, E=bf16);
  instance gemm_block = gemm_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL) tune(W=64)
      call(gemm: gemm_tile, clear: clear_tile, copy: copy_tile) warpspecialize pipeline(4)
      streamk smem(227KB);
  instance gemm_wg = gemm_mma on WARPGROUP mem(NONE, SHARED, SHARED) tune(N_MMA=128)
      call(gemm: gemm_warp);
  instance gemm_warp = gemm_mma on WARP mem(NONE, SHARED, SHARED) tune(N_MMA=128)
      call(gemm: gemm_thread);
  instance clear_wg = clear_mma on WARPGROUP mem(NONE) tune(N_MMA=128) call(clear: clear_warp);
  instance clear_warp = clear_mma on WARP mem(NONE) tune(N_MMA=128) call(clear: clear_thread);
  instance copy_wg = copy_mma on WARPGROUP mem(GLOBAL, NONE) tune(N_MMA=128) call(copy: copy_warp);
  instance copy_warp = copy_mma on WARP mem(GLOBAL, NONE) tune(N_MMA=128) call(copy: copy_thread);
}
LOOM
else
cat >> "$dst" <<'LOOM'

// Session 29 candidates (bench/results/2026-12-02-h200-streamk/candidates.sh): stream-K.
mapping sm_90a when(fastest) {
  instance host = gemm_bias_act_host on HOST mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(U=128, V=256)
      call(gemm_bias_act: block) entry(T=bf16, E=bf16);
  instance block = gemm_bias_act_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(W=64)
      call(gemm: gemm_tile, clear: clear_tile, bias_act: act_tile) warpspecialize pipeline(3)
      streamk smem(227KB);
}

mapping sm_90a when(fastest) {
  instance host = gemm_bias_act_host on HOST mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(U=128, V=128)
      call(gemm_bias_act: block) entry(T=bf16, E=bf16);
  instance block = gemm_bias_act_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(W=64)
      call(gemm: gemm_tile, clear: clear_tile, bias_act: act_tile) warpspecialize pipeline(4)
      streamk smem(227KB);
  instance gemm_wg = gemm_mma on WARPGROUP mem(NONE, SHARED, SHARED) tune(N_MMA=128)
      call(gemm: gemm_warp);
  instance gemm_warp = gemm_mma on WARP mem(NONE, SHARED, SHARED) tune(N_MMA=128)
      call(gemm: gemm_thread);
  instance clear_wg = clear_mma on WARPGROUP mem(NONE) tune(N_MMA=128) call(clear: clear_warp);
  instance clear_warp = clear_mma on WARP mem(NONE) tune(N_MMA=128) call(clear: clear_thread);
  instance act_wg = bias_act_mma on WARPGROUP mem(GLOBAL, NONE, GLOBAL) tune(N_MMA=128)
      call(bias_act: act_warp);
  instance act_warp = bias_act_mma on WARP mem(GLOBAL, NONE, GLOBAL) tune(N_MMA=128)
      call(bias_act: act_thread);
}
LOOM
fi
