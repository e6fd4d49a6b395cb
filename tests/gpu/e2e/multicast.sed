# examples/gemm -> the same GEMM with multicast(2) on every mapping that does not split K: clusters
# of 2 blocks on neighbouring row tiles, the B panel they share loaded once per cluster by TMA
# multicast (docs/mapping.md, multicast). The split-K candidates stay as they are (a cluster runs
# one or the other).
s/^      smem(227KB);$/      multicast(2) smem(227KB);/
