#!/usr/bin/env bash
# On the development machine: the experiment's programs = an example with ping-pong candidates
# appended (when(fastest) mappings; alternate(2): two teams of one compute warpgroup each take the
# block's tiles in turn, one team's epilogue under the other's main loop).
#   bash candidates.sh OUTDIR    writes OUTDIR/gba_pp.loom (examples/gemm_bias_act, GELU) and OUTDIR/gemm_pp.loom
set -eu
out=$1
mkdir -p "$out"
R=$(cd "$(dirname "$0")" && pwd)
# pp HOST BLOCK PREFIX U V N STAGES: one candidate; PREFIX names the example's instances
pp_gba() {  # U V STAGES
  cat <<M

mapping sm_90a when(fastest) {
  instance host = gemm_bias_act_host on HOST mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(U=$1, V=$2)
      call(gemm_bias_act: block) entry(T=bf16, E=bf16);
  instance block = gemm_bias_act_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(W=64)
      call(gemm: gemm_tile, clear: clear_tile, bias_act: act_tile) warpspecialize pipeline($3)
      alternate(2) smem(227KB);
  instance gemm_tile = gemm_tile on BLOCK mem(NONE, SHARED, SHARED) tune(G=1) call(gemm: gemm_wg)
      layout(A: row_major swizzle128, B: row_major swizzle128);
  instance gemm_wg = gemm_mma on WARPGROUP mem(NONE, SHARED, SHARED) tune(N_MMA=$2)
      call(gemm: gemm_warp);
  instance gemm_warp = gemm_mma on WARP mem(NONE, SHARED, SHARED) tune(N_MMA=$2)
      call(gemm: gemm_thread);
  instance clear_tile = clear_tile on BLOCK mem(NONE) tune(G=1) call(clear: clear_wg);
  instance clear_wg = clear_mma on WARPGROUP mem(NONE) tune(N_MMA=$2) call(clear: clear_warp);
  instance clear_warp = clear_mma on WARP mem(NONE) tune(N_MMA=$2) call(clear: clear_thread);
  instance act_tile = bias_act_tile on BLOCK mem(GLOBAL, NONE, GLOBAL) tune(G=1)
      call(bias_act: act_wg);
  instance act_wg = bias_act_mma on WARPGROUP mem(GLOBAL, NONE, GLOBAL) tune(N_MMA=$2)
      call(bias_act: act_warp);
  instance act_warp = bias_act_mma on WARP mem(GLOBAL, NONE, GLOBAL) tune(N_MMA=$2)
      call(bias_act: act_thread);
}
M
}
pp_gemm() {  # U V STAGES
  cat <<M

mapping sm_90a when(fastest) {
  instance gemm_host = gemm_host on HOST mem(GLOBAL, GLOBAL, GLOBAL) tune(U=$1, V=$2)
      call(gemm: gemm_block) entry(T=bf16, E=bf16);
  instance gemm_block = gemm_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL) tune(W=64)
      call(gemm: gemm_tile, clear: clear_tile, copy: copy_tile) warpspecialize pipeline($3)
      alternate(2) smem(227KB);
  instance gemm_tile = gemm_tile on BLOCK mem(NONE, SHARED, SHARED) tune(G=1) call(gemm: gemm_wg)
      layout(A: row_major swizzle128, B: row_major swizzle128);
  instance gemm_wg = gemm_mma on WARPGROUP mem(NONE, SHARED, SHARED) tune(N_MMA=$2)
      call(gemm: gemm_warp);
  instance gemm_warp = gemm_mma on WARP mem(NONE, SHARED, SHARED) tune(N_MMA=$2)
      call(gemm: gemm_thread);
  instance clear_tile = clear_tile on BLOCK mem(NONE) tune(G=1) call(clear: clear_wg);
  instance clear_wg = clear_mma on WARPGROUP mem(NONE) tune(N_MMA=$2) call(clear: clear_warp);
  instance clear_warp = clear_mma on WARP mem(NONE) tune(N_MMA=$2) call(clear: clear_thread);
  instance copy_tile = copy_tile on BLOCK mem(GLOBAL, NONE) tune(G=1) call(copy: copy_wg);
  instance copy_wg = copy_mma on WARPGROUP mem(GLOBAL, NONE) tune(N_MMA=$2) call(copy: copy_warp);
  instance copy_warp = copy_mma on WARP mem(GLOBAL, NONE) tune(N_MMA=$2) call(copy: copy_thread);
}
M
}
root=$(cd "$R/../../.." && pwd)
{ cat "$root/examples/gemm_bias_act/gemm_bias_act.loom"; pp_gba 128 128 4; pp_gba 128 128 5; pp_gba 64 256 4; } > "$out/gba_pp.loom"
{ cat "$root/examples/gemm/gemm.loom"; pp_gemm 128 128 4; pp_gemm 128 128 5; pp_gemm 64 256 4; } > "$out/gemm_pp.loom"
