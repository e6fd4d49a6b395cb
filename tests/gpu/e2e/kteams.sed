# examples/gemm -> the same GEMM whose default mapping runs kteams(2): 64 x 128 tiles, two teams of one
# compute warpgroup sharing every tile's K loop (team t takes the ring positions t mod 2; team 0 adds
# the partial sums and stores the tile; docs/mapping.md, kteams), a 6-deep ring. Keep only the default
# mapping (awk '/^mapping sm_90a when\(/ { exit } { print }'): the candidates stay as they are.
s/tune(U=128, V=256)$/tune(U=64, V=128)/
s/tune(G=2)/tune(G=1)/
s/N_MMA=256/N_MMA=128/
s/warpspecialize pipeline(3)$/warpspecialize pipeline(6)/
s/^      smem(227KB);$/      kteams(2) smem(227KB);/
