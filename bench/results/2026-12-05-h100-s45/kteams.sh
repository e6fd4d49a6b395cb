#!/usr/bin/env bash
# Session 45: examples/gemm (24 mappings) + candidates appended as mappings 24-31, written to $1/gemm.loom.
#   bash bench/results/2026-12-05-h100-s45/kteams.sh DIR        the kteams(T) candidates (r2-r4)
#   bash bench/results/2026-12-05-h100-s45/kteams.sh DIR r5     the 64 x 104 candidates (r5)
set -eu
out=$1
mkdir -p "$out"
# cand U V W P G N_MMA T variant-suffix extra-clauses (T = 1: no kteams clause)
cand() {
  local U=$1 V=$2 W=$3 P=$4 G=$5 NM=$6 T=$7 t=$8 extra=$9 kt=""
  [ "$T" -gt 1 ] && kt="kteams($T) "
  cat <<EOT

mapping sm_90a when(fastest) {
  instance gemm_host = gemm_host on HOST mem(GLOBAL, GLOBAL, GLOBAL) tune(U=$U, V=$V)
      call(gemm: gemm_block) entry(T=bf16, E=bf16);
  instance gemm_block = gemm_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL) tune(W=$W)
      call(gemm: gemm_tile, clear: clear_tile, copy: copy_tile) warpspecialize pipeline($P)
      $kt$extra smem(227KB);
  instance gemm_tile = gemm_tile$t on BLOCK mem(NONE, SHARED, SHARED) tune(G=$G) call(gemm: gemm_wg)
      layout(A: row_major swizzle128, B: row_major swizzle128);
  instance gemm_wg = gemm_mma$t on WARPGROUP mem(NONE, SHARED, SHARED) tune(N_MMA=$NM)
      call(gemm: gemm_warp);
  instance gemm_warp = gemm_mma$t on WARP mem(NONE, SHARED, SHARED) tune(N_MMA=$NM)
      call(gemm: gemm_thread);
  instance gemm_thread = gemm_thread on THREAD mem(REGISTER, SHARED, SHARED);
  instance clear_tile = clear_tile$t on BLOCK mem(NONE) tune(G=$G) call(clear: clear_wg);
  instance clear_wg = clear_mma$t on WARPGROUP mem(NONE) tune(N_MMA=$NM) call(clear: clear_warp);
  instance clear_warp = clear_mma$t on WARP mem(NONE) tune(N_MMA=$NM) call(clear: clear_thread);
  instance clear_thread = clear_thread on THREAD mem(REGISTER);
  instance copy_tile = copy_tile$t on BLOCK mem(GLOBAL, NONE) tune(G=$G) call(copy: copy_wg);
  instance copy_wg = copy_mma$t on WARPGROUP mem(GLOBAL, NONE) tune(N_MMA=$NM) call(copy: copy_warp);
  instance copy_warp = copy_mma$t on WARP mem(GLOBAL, NONE) tune(N_MMA=$NM) call(copy: copy_thread);
  instance copy_thread = copy_thread on THREAD mem(GLOBAL, REGISTER);
}
EOT
}
if [ "${2:-}" = r5 ]; then
{
  cat examples/gemm/gemm.loom
  cand 64 104 64 8 1 104 1 "" "multicast(4, 2)"     # 24: 64 x 104 on clusters of 4 x 2 (cuBLAS's tile at 600x1248x4736)
  cand 64 104 64 8 1 104 1 "" "multicast(2, 4)"     # 25: the same on 2 x 4
  cand 64 104 64 8 1 104 1 "" ""                    # 26: 64 x 104, 8 stages
  cand 64 104 64 4 1 104 1 "" "splitk(8)"           # 27: 64 x 104 split 8 ways
  cand 64 104 64 8 1 104 2 "" "multicast(2, 4)"     # 28: 64 x 104 on 2 x 4, kteams(2)
  cand 64 184 64 6 1 184 1 "" ""                    # 29: 64 x 184, 6 stages
  cand 64 104 64 8 1 104 2 "" ""                    # 30: 64 x 104, kteams(2)
  cand 128 104 64 6 2 104 1 "" "multicast(2, 2)"    # 31: 128 x 104 on 2 x 2
} > "$out/gemm.loom"
exit 0
fi
{
  cat examples/gemm/gemm.loom
  cand 64 128 64 6 1 128 2 "" ""                    # 24: 64 x 128, 6 stages
  cand 64 128 64 8 1 128 2 "" "multicast(4, 2)"     # 25: 64 x 128 on clusters of 4 x 2, 8 stages (r4; r2, r3: 6)
  cand 64 256 64 4 1 256 2 "" ""                    # 26: 64 x 256, 4 stages
  cand 128 128 64 4 2 128 2 "" ""                   # 27: 128 x 128 on 2 teams of 2 warpgroups
  cand 64 192 64 4 1 192 2 "" ""                    # 28: 64 x 192, 4 stages
  cand 80 128 64 6 2 80 2 "_t" ""                   # 29: transposed 80 x 128 (2 warpgroups of 64 columns a team; r2: 64 x 128, kteams(4), 4 stages)
  cand 80 64 64 8 1 80 2 "_t" ""                    # 30: transposed 80 x 64, 8 stages
  cand 64 128 64 6 1 128 2 "" "multicast(4, 2)"     # 31: 64 x 128 on clusters of 4 x 2, 6 stages (r4; r2, r3: multicast(2))
} > "$out/gemm.loom"
