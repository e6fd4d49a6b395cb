# examples/gemm -> the same GEMM with B column-major (K x N stored as N rows of K): the entry
# instances say so for the global tensor, the staging instance for its shared tiles.
s/call(gemm: gemm_block) entry(T=bf16, E=bf16);/call(gemm: gemm_block) layout(B: col_major) entry(T=bf16, E=bf16);/
s/layout(A: row_major swizzle128, B: row_major swizzle128);/layout(A: row_major swizzle128, B: col_major swizzle128);/
