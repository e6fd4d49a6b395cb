#!/usr/bin/env bash
# bench/results/2026-12-05-h100-s46/gba_cands.sh IN.loom OUT.loom: examples/gemm_bias_act with candidate mappings
# appended (indices 13..): the tiles examples/gemm has and gemm_bias_act lacks, and two ping-pong forms.
set -eu
in=$1; out=$2
cp "$in" "$out"
cand() {  # cand U V G N_MMA BLOCKOPTS
  local U=$1 V=$2 G=$3 N=$4; shift 4
  cat >> "$out" <<M

mapping sm_90a when(fastest) {
  instance host = gemm_bias_act_host on HOST mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(U=$U, V=$V)
      call(gemm_bias_act: block) entry(T=bf16, E=bf16);
  instance block = gemm_bias_act_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(W=64)
      call(gemm: gemm_tile, clear: clear_tile, bias_act: act_tile) warpspecialize $* smem(227KB);
  instance gemm_tile = gemm_tile on BLOCK mem(NONE, SHARED, SHARED) tune(G=$G) call(gemm: gemm_wg)
      layout(A: row_major swizzle128, B: row_major swizzle128);
  instance gemm_wg = gemm_mma on WARPGROUP mem(NONE, SHARED, SHARED) tune(N_MMA=$N) call(gemm: gemm_warp);
  instance gemm_warp = gemm_mma on WARP mem(NONE, SHARED, SHARED) tune(N_MMA=$N) call(gemm: gemm_thread);
  instance clear_tile = clear_tile on BLOCK mem(NONE) tune(G=$G) call(clear: clear_wg);
  instance clear_wg = clear_mma on WARPGROUP mem(NONE) tune(N_MMA=$N) call(clear: clear_warp);
  instance clear_warp = clear_mma on WARP mem(NONE) tune(N_MMA=$N) call(clear: clear_thread);
  instance act_tile = bias_act_tile on BLOCK mem(GLOBAL, NONE, GLOBAL) tune(G=$G) call(bias_act: act_wg);
  instance act_wg = bias_act_mma on WARPGROUP mem(GLOBAL, NONE, GLOBAL) tune(N_MMA=$N) call(bias_act: act_warp);
  instance act_warp = bias_act_mma on WARP mem(GLOBAL, NONE, GLOBAL) tune(N_MMA=$N) call(bias_act: act_thread);
}
M
}
cand 192 192 3 192 "pipeline(3)"                    # 13: examples/gemm's m9
cand 192 192 3 192 "pipeline(4) multicast(2)"       # 14: examples/gemm's m12
cand 64 128 1 128 "pipeline(8) multicast(4, 2)"     # 15: examples/gemm's m23
cand 64 256 1 256 "pipeline(4) alternate(2)"        # 16: ping-pong, 64 x 256 a team
cand 64 192 1 192 "pipeline(5) alternate(2)"        # 17: ping-pong, 64 x 192 a team
cand 128 96 1 96 "pipeline(5) alternate(2)"         # 18: ping-pong, 128 x 96 a team
