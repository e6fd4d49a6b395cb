# examples/gemm -> the same GEMM whose default mapping is CUTLASS's ping-pong kernel with B shared
# across a cluster of two: one compute warpgroup holds a whole 128 x 128 tile (two row blocks of 64
# in its accumulator), two such teams per block take the block's tiles in turn (alternate(2)), and
# the clusters' two blocks share B's loads (multicast(2)), a 4-deep ring. Keep only the default
# mapping (awk '/^mapping sm_90a when\(/ { exit } { print }').
s/tune(U=128, V=256)$/tune(U=128, V=128)/
s/tune(G=2)/tune(G=1)/
s/tune(N_MMA=256)/tune(N_MMA=128)/
s/warpspecialize pipeline(3)$/warpspecialize pipeline(4) multicast(2)/
s/^      smem(227KB);$/      alternate(2) smem(227KB);/
