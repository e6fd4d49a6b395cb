// Inputs of element-wise leaves read from global memory, in the epilogue: the leaf's mapping keeps
// the tensor in GLOBAL down to the threads, and each thread loads the elements that meet its
// accumulator registers into registers of its own, converted to fp32, once per tile (where the leaf
// runs, after the K loop), before the leaf's loop reads them:
//
//   * a column vector: a lane's piece of a rank-1 tensor cut by `mma(v, rhs, ...)` (the columns of
//     the accumulator, src/layout/partition.h), the B operand of a binary leaf that broadcasts it
//     along columns (ir::Op::broadcast_dim = 1: a bias, D[i, j] = X[i, j] + b[j]). Register r of a
//     thread's 64 x N fragment lies in column acc_col(t, r) of the warpgroup's tile; registers
//     4j .. 4j + 3 cover only the two columns acc_col(t, 4j) and + 1 (two rows each), so a thread
//     loads N / 4 pairs of entries (N / 2 values), not one per register;
//   * a global fragment: a thread's accumulator-distributed piece of a global rank-2 tile (a
//     residual C in D = A B + alpha C); registers 2j and 2j + 1 are the adjacent elements
//     (acc_row(t, 2j), acc_col(t, 2j)) and (.., + 1): one pair load each.
//
// A pair is one 32-bit load when the two elements are 16-bit, adjacent in memory and 4-byte aligned
// (loom::rt::ldg_pair; else two loads); a column vector's pairs are loaded by loom::rt::ldg_col_pairs,
// and a fragment's by loom::rt::ldg_frag_pairs, which issue all of a tile's loads before converting
// any when the whole tile is in range. Elements past the tile's run-time extents (a clipped edge
// tile) read as 0 and are never loaded: those registers are not stored either (epilogue.cpp).
// Loads go through the read-only data path (__ldg); the 8 lanes that share a column vector's entries
// (and a quad's neighbours, for a fragment) hit the same sectors.
#include "codegen/cuda_gen.h"

namespace loom::codegen::detail {

// Whether operand i of element-wise leaf `op` is such a global input; if so, the declarations to
// emit once before the leaf's loop and the fp32 value for a register index expression.
std::optional<CudaGen::GlobalInput> CudaGen::global_input(const Op& op, size_t i) {
  const ValueId v = op.operands[i];
  if (f_.info(v).type == ir::Type::Tensor && mem_of(v) == MemKind::Shared) return shared_input(op, i);
  if (f_.info(v).type != ir::Type::Tensor || f_.info(v).mem != MemKind::Global) return std::nullopt;
  const View& w = view(v);
  if (!w.frag || w.frag->level != 2 || !w.param) return std::nullopt;
  if (!w.cols) untransposed(*w.frag, &op, "a global input");
  const std::string P = pname(w.root), T = cpp_type(w.dtype), n = var(v);
  const View& tile = view(w.frag->tile);
  const int rank = f_.info(w.root).rank;
  if (w.dtype != DType::BF16 && w.dtype != DType::F16 && w.dtype != DType::F32)
    cannot(&op, "a global input of element type " + std::string(dtype_name(w.dtype)));
  GlobalInput g;
  std::string lin;
  for (int d = 0; d < rank; ++d)
    lin += (d ? " + " : "") + std::string("(") + tile.off[static_cast<size_t>(d)] + ") * " + P + ".stride[" + std::to_string(d) + "]";
  g.decls.push_back("const " + T + "* const " + n + "_p = reinterpret_cast<const " + T + "*>(" + P + ".data) + " + lin + ";");
  g.decls.push_back("const int " + n + "_t = loom::rt::thread_in_warpgroup();");
  if (w.cols) {
    // A column vector, broadcast along the fragment's columns.
    if (i != 2 || op.broadcast_dim != 1)
      cannot(&op, "a column vector (an mma rhs piece of a rank-1 tensor) other than the broadcast operand of a binary leaf");
    const std::string E = tile.ext[0], S = P + ".stride[" + std::to_string(tile.dims[0]) + "]";
    g.decls.push_back("const int64_t " + n + "_e = " + E + ";  // the tile's entries of " + P);
    if (w.frag->transposed) {
      // The transposed accumulator's columns are the wgmma's rows (layout/partition.h): the lane
      // holds entries acc_row(t, 0) and acc_row(t, 2) of every 64, and register idx of its
      // fragment (rows of 64 b .. in registers b * R ..) reads entry 2 b + ((idx >> 1) & 1).
      const int64_t entries = static_extents(v, &op).at(0), blocks = entries / 2;
      // The accumulator's registers per 64-row block (n_R) follow from the fragment's register
      // count, which the leaf gives the preload.
      g.preload = [=](int64_t regs) {
        std::vector<std::string> l{"float " + n + "_v[" + std::to_string(entries) + "];  // entries acc_row(t, 2 h) + 64 b, in " + n +
                                   "_v[2 b + h]"};
        if (blocks > 1) l.push_back("constexpr int " + n + "_R = " + std::to_string(regs / blocks) + ";  // registers per 64 columns");
        l.push_back("#pragma unroll");
        l.push_back("for (int q = 0; q < " + std::to_string(entries) + "; ++q) {");
        l.push_back("  const int64_t e = loom::rt::acc_row(" + n + "_t, 2 * (q & 1)) + 64 * (q >> 1);");
        l.push_back("  " + n + "_v[q] = e < " + n + "_e ? static_cast<float>(" + n + "_p[e * " + S + "]) : 0.0f;");
        l.push_back("}");
        return l;
      };
      g.value = [=](const std::string& idx) {
        return n + "_v[" + (blocks > 1 ? "2 * ((" + idx + ") / " + n + "_R) + " : std::string()) + "(((" + idx + ") >> 1) & 1)]";
      };
      return g;
    }
    // One row block's registers (N / 2 for N columns): every row block of a taller fragment has
    // the same columns, so its register idx reads register idx % (N / 2)'s entry (g.period).
    const int64_t half = static_extents(w.frag->tile, &op).at(0) / 2;
    g.preload = [=](int64_t) {
      return std::vector<std::string>{
          "float " + n + "_v[" + std::to_string(half / 2) + "];  // entries at columns acc_col(t, 4j) + h, in " + n + "_v[2j + h]",
          std::string("loom::rt::ldg_col_pairs<") + std::to_string(half / 4) + ">(" + n + "_p, " + n + "_t, " + S + ", " + n + "_e, " +
              n + "_v);"};
    };
    g.value = [=](const std::string& idx) { return n + "_v[((" + idx + ") >> 2) * 2 + ((" + idx + ") & 1)]"; };
    g.period = half;
    return g;
  }
  if (w.frag->role != MmaRole::Acc || tile.dims.size() != 2)
    cannot(&op, "a global input other than a thread's accumulator fragment of a rank-2 tile or a column vector");
  const std::string E0 = tile.ext[0], E1 = tile.ext[1];
  const std::string RS = P + ".stride[" + std::to_string(tile.dims[0]) + "]";
  const std::string CS = P + ".stride[" + std::to_string(tile.dims[1]) + "]";
  g.decls.push_back("const int64_t " + n + "_e0 = " + E0 + ", " + n + "_e1 = " + E1 + ";  // the tile of " + P);
  // Row block b of a fragment of 64 R rows: the tile's rows 64 b .., into registers b N/2 ...
  const auto wt = static_extents(w.frag->tile, &op);
  const int64_t blocks = std::max<int64_t>(1, wt.at(0) / 64), half = wt.at(1) / 2;
  g.preload = [=](int64_t regs) {
    std::vector<std::string> l{"float " + n + "_v[" + std::to_string(regs) + "];  // the thread's elements of the tile, in fragment order"};
    if (blocks == 1) {
      l.push_back(std::string("loom::rt::ldg_frag_pairs<") + std::to_string(regs / 2) + ">(" + n + "_p, " + n + "_t, " + RS + ", " + CS +
                  ", " + n + "_e0, " + n + "_e1, " + n + "_v);");
      return l;
    }
    for (int64_t b = 0; b < blocks; ++b)
      l.push_back(std::string("loom::rt::ldg_frag_pairs<") + std::to_string(half / 2) + ">(" + n + "_p + " + std::to_string(64 * b) + " * " +
                  RS + ", " + n + "_t, " + RS + ", " + CS + ", " + n + "_e0 - " + std::to_string(64 * b) + ", " + n + "_e1, " +
                  "*reinterpret_cast<float(*)[" + std::to_string(half) + "]>(&" + n + "_v[" + std::to_string(b * half) + "]));  // rows " +
                  std::to_string(64 * b) + " ..");
    return l;
  };
  g.value = [=](const std::string& idx) { return n + "_v[" + idx + "]"; };
  return g;
}

// A shared input: a thread's accumulator-distributed piece of a 16-bit tile in shared memory (a
// TMA-loaded operand tile, read where a prologue leaf transforms it: examples/relu_gemm's
// relu(R, A), whose R is forwarded to the wgmma's A fragments). Register r reads element
// (acc_row(t, r), acc_col(t, r)) of the warpgroup's tile, at its swizzled address in the alloc's
// tile (runtime.cuh, k_major_offset: the row-major tile is K-major); 0 past the tile's extents.
std::optional<CudaGen::GlobalInput> CudaGen::shared_input(const Op& op, size_t i) {
  const ValueId v = op.operands[i];
  const View& w = view(v);
  if (!w.frag || w.frag->level != 2 || w.frag->role != MmaRole::Acc) return std::nullopt;
  const View& tile = view(w.frag->tile);
  const int rank = f_.info(tile.root).rank;
  if (tile.param || tile.dims.size() != 2) cannot(&op, "a shared input that is not a thread's accumulator piece of a shared tile");
  one_row_block(*w.frag, &op, "a shared input");
  untransposed(*w.frag, &op, "a shared input");
  if (w.dtype != DType::BF16 && w.dtype != DType::F16) cannot(&op, "a shared input of element type " + std::string(dtype_name(w.dtype)));
  View whole = tile;
  whole.off[static_cast<size_t>(rank - 2)] = "0";
  whole.off[static_cast<size_t>(rank - 1)] = "0";
  auto [ptr, rows, cols, layout] = smem_tile(whole, &op);
  if (layout.col_major) cannot(&op, "a shared input read from a column-major tile");
  check_tile_layout(layout, cols * dtype_bytes(w.dtype), &op);
  const std::string n = var(v), T = cpp_type(w.dtype), sw = swizzle_enum(layout.swizzle);
  const std::string ro = tile.off[static_cast<size_t>(rank - 2)], co = tile.off[static_cast<size_t>(rank - 1)];
  GlobalInput g;
  g.decls.push_back("const uint8_t* const " + n + "_p = reinterpret_cast<const uint8_t*>(" + ptr + ");  // the shared tile");
  g.decls.push_back("const int " + n + "_t = loom::rt::thread_in_warpgroup();");
  g.decls.push_back("const int64_t " + n + "_e0 = " + tile.ext[0] + ", " + n + "_e1 = " + tile.ext[1] + ";  // the warpgroup's tile");
  const std::string rows_s = std::to_string(rows);
  // The usual TMA tile (row-major, 128-byte swizzle, 16-bit, whole 64-column slices): the thread's
  // elements by ldmatrix, 16 columns per x4, as smem_fragments.cpp loads a shared accumulator
  // fragment; then the leaf reads registers. Elements past the warpgroup's tile read as 0; a tile
  // that fills the fragment (64 rows, 2 * regs columns) skips that test (`interior`: the leaf's
  // loop is emitted twice under a uniform branch). Measured on relu_gemm (H100): with the test on
  // every element the K loop was issue-bound, 457 TFLOP/s at 4096^3 against 684 without it.
  if (layout.swizzle == 128 && (w.dtype == DType::BF16 || w.dtype == DType::F16) && rows % 8 == 0 && cols % 64 == 0) {
    g.preload = [=](int64_t regs) {
      std::vector<std::string> l{T + " " + n + "_r[" + std::to_string(regs) + "];  // the thread's elements of the shared tile, by ldmatrix",
                                 "uint32_t " + n + "_w[" + std::to_string(regs / 2) + "];  // the same as the loaded pairs",
                                 "{"};
      for (const std::string& x : ldmatrix_fragment_lines(n + "_t", n + "_p", ro, co, rows, regs / 4, T, n + "_r", n + "_w"))
        l.push_back("  " + x);
      l.push_back("}");
      return l;
    };
    // Register idx lies at row acc_row(t, 0) + 8 ((idx >> 1) & 1), column acc_col(t, 0) + 8 (idx >> 2) +
    // (idx & 1) (F1): two row tests and one column limit per thread, the rest constants once unrolled.
    g.decls.push_back("const bool " + n + "_rows[2] = {loom::rt::acc_row(" + n + "_t, 0) < " + n + "_e0, loom::rt::acc_row(" + n +
                      "_t, 2) < " + n + "_e0};  // the thread's two rows inside the tile");
    g.decls.push_back("const int64_t " + n + "_cols = " + n + "_e1 - loom::rt::acc_col(" + n + "_t, 0);  // its columns inside: below this");
    auto inside = [=](const std::string& idx) {
      return "(" + n + "_rows[((" + idx + ") >> 1) & 1] && ((" + idx + ") >> 2) * 8 + ((" + idx + ") & 1) < " + n + "_cols)";
    };
    g.interior = [=](int64_t regs) { return n + "_e0 >= 64 && " + n + "_e1 >= " + std::to_string(2 * regs); };
    g.value_interior = [=](const std::string& idx) { return "static_cast<float>(" + n + "_r[" + idx + "])"; };
    g.value = [=](const std::string& idx) { return "(" + inside(idx) + " ? static_cast<float>(" + n + "_r[" + idx + "]) : 0.0f)"; };
    g.value16_interior = [=](const std::string& idx) { return n + "_r[" + idx + "]"; };
    g.value16 = [=](const std::string& idx) { return "(" + inside(idx) + " ? " + n + "_r[" + idx + "] : static_cast<" + T + ">(0.0f))"; };
    g.pair16_interior = [=](const std::string& p) { return n + "_w[" + p + "]"; };
    // Word p holds registers 2p and 2p + 1: row test (p & 1), columns 8 (p >> 1) and one more.
    g.pair16 = [=](const std::string& p) {
      return "(" + n + "_rows[(" + p + ") & 1] ? loom::rt::pair_mask(((" + p + ") >> 1) * 8, " + n + "_cols) : 0u) & " + n + "_w[" + p +
             "]";
    };
    return g;
  }
  g.value = [=](const std::string& idx) {
    const std::string row = "loom::rt::acc_row(" + n + "_t, " + idx + ")", col = "loom::rt::acc_col(" + n + "_t, " + idx + ")";
    return "(" + row + " < " + n + "_e0 && " + col + " < " + n + "_e1 ? static_cast<float>(*reinterpret_cast<const " + T + "*>(" +
           n + "_p + loom::rt::k_major_offset(" + sw + ", " + rows_s + ", int(" + ro + ") + " + row + ", int(" + co + ") + " + col +
           "))) : 0.0f)";
  };
  return g;
}

}  // namespace loom::codegen::detail
