s/tune(U=128, V=256)$/tune(U=128, V=128)/
s/tune(G=2)/tune(G=1)/
s/tune(N_MMA=256)/tune(N_MMA=128)/
s/warpspecialize pipeline(3)$/warpspecialize pipeline(4) multicast(2)/
s/^      smem(227KB);$/      alternate(2) smem(227KB);/
