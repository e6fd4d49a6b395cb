# examples/gemm -> the same GEMM whose default mapping runs alternate(2): 64 x 256 tiles, each taken
# by one compute warpgroup, two such teams per block taking the block's tiles in turn (one team's
# epilogue under the other's main loop; docs/mapping.md, alternate), a 5-deep ring. Keep only the
# default mapping (awk '/^mapping sm_90a when\(/ { exit } { print }'): the candidates stay as they are.
s/tune(U=128, V=256)$/tune(U=64, V=256)/
s/tune(G=2)/tune(G=1)/
s/warpspecialize pipeline(3)$/warpspecialize pipeline(5)/
s/^      smem(227KB);$/      alternate(2) smem(227KB);/
