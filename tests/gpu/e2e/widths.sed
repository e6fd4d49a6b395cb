# examples/gemm -> the same GEMM whose default mapping has 128 x 224 block tiles (N_MMA = 224): B's
# 64 x 224 tiles take four whole 64-column swizzle slices in shared memory (ir::padded_row: the last
# half used), and the staged epilogue stores the last 32 columns of a warpgroup's tile from a
# 64-byte-swizzled slice of their own (docs/codegen.md, Epilogue). Keep only the default mapping
# (awk '/^mapping sm_90a when\(/ { exit } { print }'): the candidates stay as they are.
s/tune(U=128, V=256)$/tune(U=128, V=224)/
s/tune(N_MMA=256)/tune(N_MMA=224)/
