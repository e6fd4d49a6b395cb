// Shared -> register copies of accumulator fragments: a thread's piece `mma(X, acc, ...)` of a
// 16-bit tile that the DMA role brought into shared memory (a residual C, TMA-loaded while the
// mainloop runs), read into the thread's register array in the wgmma accumulator order with
// ldmatrix — the mirror of the staged epilogue store's stmatrix (epilogue.cpp).
//
// The shared tile is the TMA layout (dma.cpp): slices of 128-byte rows (64 16-bit columns), each
// slice `rows` x 128 bytes, 16-byte chunks XOR-swizzled by the row (128-byte swizzle), the layout
// runtime.cuh's k_major_offset addresses (the tile is K-major as a wgmma A operand would be). One
// ldmatrix.x4 per 16 columns gives a warp the four 8 x 8 matrices (rows 0-7 / 8-15 of its 16 rows,
// column groups c, c + 1); lane l supplies the address of row (l & 7) + 8 ((l >> 3) & 1) of column
// group c + (l >> 4), and receives, per matrix, the pair of adjacent elements the accumulator layout
// gives it: registers 4c .. 4c + 7 (acc_row / acc_col). Elements past the tensor's edge are TMA's
// zero fill (a clipped tile reads zeros there, and the epilogue does not store them).
#include "codegen/cuda_gen.h"

namespace loom::codegen::detail {

bool CudaGen::is_smem_fragment_load(const Op& op) {
  if (op.kind != OpKind::Copy || !op.name.empty()) return false;
  const ValueId src = op.operands[0], dst = op.operands[1];
  if (f_.info(src).type != ir::Type::Tensor || f_.info(dst).type != ir::Type::Tensor) return false;
  const View& s = view(src);
  return s.mem == MemKind::Shared && !s.param && s.frag && s.frag->level == 2 && register_frag(dst).has_value();
}

void CudaGen::emit_smem_fragment_load(Stream& s, const Op& op) {
  const ValueId src = op.operands[0], dst = op.operands[1];
  const View& sv = view(src);
  auto df = register_frag(dst);
  if (!df || !sv.frag || sv.frag->role != MmaRole::Acc || df->role != MmaRole::Acc)
    cannot(&op, "a shared -> register copy other than of an accumulator fragment");
  if (sv.dtype != view(dst).dtype || (sv.dtype != DType::BF16 && sv.dtype != DType::F16))
    cannot(&op, "a shared -> register copy of " + std::string(dtype_name(sv.dtype)) + " elements (ldmatrix moves 16-bit ones)");
  const std::vector<int64_t> xt = tile_static(*sv.frag, &op);
  if (xt != tile_static(*df, &op)) cannot(&op, "a shared -> register copy between fragments of different tiles");
  one_row_block(*df, &op, "a shared -> register copy");
  untransposed(*df, &op, "a shared -> register copy");
  const View& tile = view(sv.frag->tile);  // the warpgroup's tile of the shared alloc
  const ValueId root = tile.root;
  const int rank = f_.info(root).rank;
  if (rank != 2 || tile.dims.size() != 2 || tile.dims[0] != 0 || tile.dims[1] != 1)
    cannot(&op, "a shared -> register copy from a tile that is not a piece of a rank-2 shared alloc");
  const Op* alloc = def_.at(root);
  if (alloc->layout.col_major || alloc->layout.swizzle != 128)
    cannot(&op, "a shared -> register copy from a shared tile without the row-major 128-byte swizzle",
           "give the tensor layout(X: row_major swizzle128) in the instance that stages it");
  const std::vector<int64_t> ext = static_extents(root, &op);
  if (ext[0] % 8 != 0 || ext[1] % 64 != 0)
    cannot(&op, "a shared -> register copy from a tile of " + std::to_string(ext[0]) + " x " + std::to_string(ext[1]) +
                    " elements (rows a multiple of 8, columns of 64)");
  if (xt[1] % 16 != 0) cannot(&op, "a shared -> register copy of a fragment narrower than 16 columns");
  const std::string T = cpp_type(sv.dtype), d = var(dst);
  s.line("{  // " + names_[static_cast<size_t>(src)] + " -> " + names_[static_cast<size_t>(dst)] +
         ": the thread's accumulator-order elements of the shared tile, by ldmatrix (16 columns per x4)");
  s.line("  const int tid = loom::rt::thread_in_warpgroup();");
  s.line("  const uint8_t* const base = reinterpret_cast<const uint8_t*>(" + var(root) + ");");
  for (const std::string& l : ldmatrix_fragment_lines("tid", "base", tile.off[0], tile.off[1], ext[0], xt[1] / 8, T, d)) s.line("  " + l);
  s.line("}");
}

// The loads of a warpgroup's accumulator-order fragment from a row-major, 128-byte swizzled shared
// tile of `tile_rows` rows (the layout above): `col_groups` 8-column groups from (row0, col0) of
// the tile at `base` into `dst`, one ldmatrix.x4 per two groups. `tid` is the thread's index in its
// warpgroup. With `words`, the loaded 32-bit words are also kept there: word p holds registers 2p
// and 2p + 1 as a pair (the low half the even one), the form a wgmma A fragment packs them in.
// Shared by the shared -> register copy above and the in-place shared inputs of element-wise
// leaves (operands.cpp).
std::vector<std::string> CudaGen::ldmatrix_fragment_lines(const std::string& tid, const std::string& base, const std::string& row0,
                                                          const std::string& col0, int64_t tile_rows, int64_t col_groups,
                                                          const std::string& T, const std::string& dst, const std::string& words) {
  const std::string keep = words.empty() ? "" : words + "[2 * c + q] = w[q]; ";
  return {"const int lane = loom::rt::lane_id();",
          "const int mrow = static_cast<int>(" + row0 + ") + 16 * (" + tid + " / 32) + (lane & 7) + 8 * ((lane >> 3) & 1);",
          "const int col0 = static_cast<int>(" + col0 + ") + 8 * (lane >> 4);  // column groups c, c + 1: lanes 0-15, 16-31",
          "#pragma unroll",
          "for (int c = 0; c < " + std::to_string(col_groups) + "; c += 2) {",
          "  uint32_t w[4];",
          "  loom::rt::ldmatrix_x4(" + base + " + loom::rt::k_major_offset(loom::Swizzle::B128, " + std::to_string(tile_rows) +
              ", mrow, col0 + 8 * c), w);",
          "  #pragma unroll",
          "  for (int q = 0; q < 4; ++q) " + (keep.empty() ? "" : "{ " + keep) + "loom::rt::unpack_pair<" + T + ">(w[q], " + dst +
              "[4 * c + 2 * q], " + dst + "[4 * c + 2 * q + 1]);" + (keep.empty() ? "" : " }"),
          "}"};
}

}  // namespace loom::codegen::detail
