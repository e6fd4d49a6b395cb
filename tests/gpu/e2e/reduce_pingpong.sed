# examples/gemm_reduce -> the same GEMM + row sums on CUTLASS's ping-pong structure: one compute
# warpgroup holds a whole 128 x 128 tile (two row blocks of 64: its row sums are 4 registers a
# thread, rows.cpp), two such teams per block take the block's tiles in turn (alternate(2)), so one
# team's row sums, atomics and C stores run under the other team's main loop; a 4-deep ring.
# Only the default mapping block is edited (examples/gemm_reduce's when(fastest) candidates, one of
# them this same structure, are left as they are).
/^mapping sm_90a {/,/^}/s/tune(U=128, V=256) call(gemm_reduce_tile/tune(U=128, V=128) call(gemm_reduce_tile/
/^mapping sm_90a {/,/^}/s/tune(G=2)/tune(G=1)/
/^mapping sm_90a {/,/^}/s/tune(N_MMA=256)/tune(N_MMA=128)/
/^mapping sm_90a {/,/^}/s/warpspecialize pipeline(3) smem(227KB);/warpspecialize pipeline(4) alternate(2) smem(227KB);/
