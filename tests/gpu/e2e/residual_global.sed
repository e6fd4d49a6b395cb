# examples/gemm_residual with C read from GLOBAL down to the threads (the alternative its README
# describes): the epilogue loads each thread's fragment of C with loom::rt::ldg_frag_pairs instead of
# TMA + ldmatrix. Used by tests/gpu/e2e/gemm_residual.sh.
s/res_tile = residual_tile on BLOCK mem(GLOBAL, NONE, SHARED) tune(G=2)/res_tile = residual_tile on BLOCK mem(GLOBAL, NONE, GLOBAL) tune(G=2)/
s/call(residual: res_wg) layout(C: row_major swizzle128);/call(residual: res_wg);/
s/residual_mma on WARPGROUP mem(GLOBAL, NONE, NONE)/residual_mma on WARPGROUP mem(GLOBAL, NONE, GLOBAL)/
s/residual_mma on WARP mem(GLOBAL, NONE, NONE)/residual_mma on WARP mem(GLOBAL, NONE, GLOBAL)/
s/residual_thread on THREAD mem(GLOBAL, REGISTER, REGISTER)/residual_thread on THREAD mem(GLOBAL, REGISTER, GLOBAL)/
