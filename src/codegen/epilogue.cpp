// The epilogue: stores of a thread's accumulator fragment into a global tile, staged through shared
// memory with TMA stores where possible, else directly from registers; both clipped at the tile's
// extents.
#include "codegen/cuda_gen.h"

#include <algorithm>

namespace loom::codegen::detail {

namespace {

// The address of the global tile's first element, for the direct stores: P's data (element type
// T) plus the tile's offset along each of the tensor's rank dimensions times its stride.
std::string tile_origin(const View& tile, int rank, const std::string& P, const std::string& T) {
  std::string lin;
  for (int i = 0; i < rank; ++i)
    lin += (i ? " + " : "") + std::string("(") + tile.off[static_cast<size_t>(i)] + ") * " + P + ".stride[" + std::to_string(i) + "]";
  return "reinterpret_cast<" + T + "*>(" + P + ".data) + " + lin;
}

// Emits the store of mine[0..3], 8 consecutive 16-bit values of one row, to p (column col of a
// row clipped at E1): one 16-byte store where the 8 lie inside, else value by value. The
// async-copy variant runs on tensors whose rows need not start on 16 bytes: the widest stores the
// address allows (runtime/loom/async_copy.cuh).
void emit_chunk_store(Stream& s, const std::string& in, const std::string& T, const std::string& p, const std::string& col,
                      const std::string& E1, bool async_copy) {
  s.line(in + T + "* const p = " + p + ";");
  s.line(in + "if (" + col + " + 8 <= " + E1 + ") {");
  if (async_copy) s.line(in + "  loom::rt::store_16_bytes(p, mine[0], mine[1], mine[2], mine[3]);");
  else s.line(in + "  *reinterpret_cast<uint4*>(p) = make_uint4(mine[0], mine[1], mine[2], mine[3]);");
  s.line(in + "} else {");
  s.line(in + "  #pragma unroll");
  s.line(in + "  for (int e = 0; e < 8; ++e)");
  s.line(in + "    if (" + col + " + e < " + E1 + ") reinterpret_cast<uint16_t*>(p)[e] = static_cast<uint16_t>(mine[e / 2] >> (16 * (e & 1)));");
  s.line(in + "}");
}

// Emits the store of `pair`, 2 consecutive 16-bit values of one row, to p (column col of a row
// clipped at E1): one 4-byte store where both lie inside (and, in the async-copy variant, the
// address allows it), else one by one.
void emit_pair_store(Stream& s, const std::string& in, const std::string& T, const std::string& p, const std::string& col,
                     const std::string& E1, bool async_copy) {
  s.line(in + T + "* const p = " + p + ";");
  if (async_copy) {
    s.line(in + "if (" + col + " + 1 < " + E1 + " && (reinterpret_cast<uintptr_t>(p) & 3) == 0) *reinterpret_cast<uint32_t*>(p) = pair;");
    s.line(in + "else {");
    s.line(in + "  if (" + col + " < " + E1 + ") *reinterpret_cast<uint16_t*>(p) = static_cast<uint16_t>(pair);");
    s.line(in + "  if (" + col + " + 1 < " + E1 + ") reinterpret_cast<uint16_t*>(p)[1] = static_cast<uint16_t>(pair >> 16);");
    s.line(in + "}");
  } else {
    s.line(in + "if (" + col + " + 1 < " + E1 + ") *reinterpret_cast<uint32_t*>(p) = pair;");
    s.line(in + "else if (" + col + " < " + E1 + ") *reinterpret_cast<uint16_t*>(p) = static_cast<uint16_t>(pair);");
  }
}

}  // namespace

bool CudaGen::staging_over_budget() const {
  const int64_t budget = f_.smem.bytes > 0 ? f_.smem.bytes : f_.smem.machine_max;
  return stage_bytes_ > 0 && budget > 0 && smem_bytes_ > budget;
}

// Stores value(register index) of a thread's accumulator fragment into D, the thread's fragment
// of a global tile (bf16/f16), clipped at the tile's extents. Two ways, chosen per warpgroup tile
// at run time when the first is available:
//   * staged (TMA store): the warpgroup writes its tile into a private shared-memory staging tile
//     (stmatrix, 128-byte swizzle), and one thread stores it with TMA boxes; the warps go on to the
//     next tile while the stores drain, so the DRAM writes overlap the next tile's mainloop. Used
//     when the tile lies inside D or is clipped only by D's own edges (TMA skips what lies past
//     them; on the contiguous dimension only where D's rows are whole 16-byte units, since TMA
//     would otherwise write the row padding), D is only ever written by such stores in this
//     kernel, and the staging tiles fit the shared-memory budget;
//   * direct: quad-transposed 16-byte stores straight from registers.
void CudaGen::emit_store(Stream& s, const Op& op, const Frag& xf, const std::function<std::string(const std::string&)>& value) {
  const View& d = view(op.operands[0]);
  if (!d.frag || d.frag->level != 2 || d.frag->role != MmaRole::Acc || d.mem != MemKind::Global || !d.param)
    cannot(&op, "a `" + op.name + "` into something other than a thread's accumulator fragment of a global tensor");
  auto xt = tile_static(xf, &op), dt = tile_static(*d.frag, &op);
  if (xt != dt) cannot(&op, "a store between fragments of different tiles");
  if (xf.transposed != d.frag->transposed) cannot(&op, "a store between a transposed and an untransposed fragment");
  if (xf.transposed) return emit_transposed_store(s, op, xf, value);
  const View& tile = view(d.frag->tile);
  const int rank = f_.info(d.root).rank;
  if (tile.dims[1] != rank - 1 || param_col_major(d.root))
    cannot(&op, "a store whose columns are not the tensor's contiguous dimension");
  if (d.dtype != DType::BF16 && d.dtype != DType::F16) cannot(&op, "a store to " + std::string(dtype_name(d.dtype)));
  const std::string P = pname(d.root);
  const std::string T = cpp_type(d.dtype);
  const std::string E0 = tile.ext[0], E1 = tile.ext[1];
  const int64_t eb = dtype_bytes(d.dtype);
  // Staging: whole 128-byte swizzle slices of the tile's rows, a box of at most 256 rows, and a
  // last slice of 64 bytes (64-byte swizzle) where the rows end half-way into one (a 224-column
  // tile: three slices and a tail of 32 columns). A tile with a tail is staged whole or not at all.
  const int64_t slice_cols = 128 / eb, slices = xt[1] / slice_cols;
  const int64_t tail_cols = xt[1] % slice_cols;
  const bool tail_ok = tail_cols == 0 || (tail_cols * eb == 64 && stage_slices_ > slices);
  // A fragment of 64 R rows: R row blocks, row block b in registers b half .. (b + 1) half - 1.
  const int64_t blocks = frag_row_blocks(xf, &op), half = xt[1] / 2;
  const bool stageable = staging_allowed_ && &s == &compute_ && xt[0] % 8 == 0 && xt[0] <= 256 && tail_ok &&
                         store_only(d.root);
  s.line("{  // the warpgroup's " + std::to_string(xt[0]) + " x " + std::to_string(xt[1]) + " accumulator tile -> " + P +
         ", clipped to " + E0 + " x " + E1);
  s.line("  const int tid = loom::rt::thread_in_warpgroup();");
  if (stageable) {
    const StagePlan plan = stage_plan(d, tile, slices, xt[0], slice_cols, tail_cols);
    const int64_t slice_bytes = plan.slice_bytes, per = plan.per, chunks = plan.chunks, stage_tile = plan.stage_tile;
    const int dc = tile.dims[1];
    const std::string& tm = plan.tm;
    s.line("  // staged when the box is clipped only by " + P + "'s edges (TMA skips what lies past them)");
    s.line("  const bool staged = " + staged_condition(tile, P, xt, eb) + ";");
    s.line("  if (staged) {  // through this warpgroup's staging tile: " + std::to_string(slices) + " slices of " +
           std::to_string(xt[0]) + " rows x 128 bytes, 128-byte swizzle" +
           (tail_cols ? " and one of " + std::to_string(xt[0]) + " rows x 64 bytes, 64-byte swizzle" : "") +
           (chunks > 1 ? ", " + std::to_string(per) + " at a time (the ring leaves room for " + std::to_string(stage_tile) + " bytes a warpgroup)" : ""));
    s.line("    uint8_t* const stage = loom_stage + consumer_wg * " + std::to_string(stage_tile) + ";");
    const std::string lanes = "const int lane = loom::rt::lane_id(), mrow = 16 * (tid / 32) + (lane & 7) + 8 * ((lane >> 3) & 1);";
    std::string in = "    ";
    if (chunks > 1) {
      s.line(in + lanes);
      s.line("    #pragma unroll");
      s.line("    for (int ch = 0; ch < " + std::to_string(chunks) + "; ++ch) {  // slices " + std::to_string(per) + " ch .. " +
             std::to_string(per) + " ch + " + std::to_string(per - 1));
      in += "  ";
    }
    s.line(in + "if (tid == 0) loom::rt::tma_store_wait<0>();  // the previous store has read the staging tile");
    s.line(in + "loom::rt::named_barrier_sync(1 + consumer_wg, 128);  // staging tile free");
    if (chunks == 1) s.line(in + lanes);
    const std::string outer = in;
    if (blocks > 1) {
      s.line(in + "#pragma unroll");
      s.line(in + "for (int rb = 0; rb < " + std::to_string(blocks) + "; ++rb) {  // row blocks of 64 rows");
      in += "  ";
    }
    const std::string rowx = blocks > 1 ? "(mrow + 64 * rb)" : "mrow";
    auto reg = [&](const std::string& i) { return value(blocks > 1 ? "rb * " + std::to_string(half) + " + " + i : i); };
    const std::string c0 = chunks > 1 ? std::to_string(per * 8) + " * ch" : "0";  // the chunk's first column group
    s.line(in + "#pragma unroll");
    s.line(in + "for (int c = " + c0 + "; c < " + (chunks > 1 ? c0 + " + " + std::to_string(per * 8) : std::to_string(xt[1] / 8)) +
           "; c += 2) {  // 8x8 matrices: rows 0-7 / 8-15 of column groups c, c + 1");
    s.line(in + "  const int cg = c + (lane >> 4);");
    const std::string whole_row = "stage + (cg / 8" + (chunks > 1 ? " - " + std::to_string(per) + " * ch" : std::string()) + ") * " +
                                  std::to_string(slice_bytes) + " + " + rowx + " * 128 + (((cg % 8) ^ (mrow % 8)) * 16)";
    if (tail_cols)  // c is a constant once unrolled: the tail's column groups use the 64-byte rows of its slice
      s.line(in + "  uint8_t* const row = c < " + std::to_string(8 * slices) + " ? " + whole_row + "\n" + in + "                           : stage + " +
             std::to_string(slices * slice_bytes) + " + " + rowx + " * 64 + (((cg % 8) ^ ((mrow >> 1) % 4)) * 16);");
    else
      s.line(in + "  uint8_t* const row = " + whole_row + ";");
    s.line(in + "  loom::rt::stmatrix_x4(row, loom::rt::pack2<" + T + ">(" + reg("4 * c") + ", " + reg("4 * c + 1") + "), loom::rt::pack2<" +
           T + ">(" + reg("4 * c + 2") + ", " + reg("4 * c + 3") + "),");
    s.line(in + "                        loom::rt::pack2<" + T + ">(" + reg("4 * c + 4") + ", " + reg("4 * c + 5") +
           "), loom::rt::pack2<" + T + ">(" + reg("4 * c + 6") + ", " + reg("4 * c + 7") + "));");
    s.line(in + "}");
    if (blocks > 1) s.line(outer + "}");
    s.line(outer + "loom::rt::fence_proxy_async_shared();  // the stmatrix writes before the TMA store reads them");
    s.line(outer + "loom::rt::named_barrier_sync(1 + consumer_wg, 128);  // staging tile written");
    s.line(outer + "if (tid == 0) {");
    // One TMA store box of map `map` from staging byte `from`, at the tile's origin plus `cols`
    // columns (an expression; "" for none).
    auto store_box = [&](const std::string& map, int64_t from, const std::string& cols) {
      std::string call = outer + "  loom::rt::tma_store_" + std::to_string(rank) + "d(&" + map + ", stage" +
                         (from ? " + " + std::to_string(from) : "");
      for (int dd = rank - 1; dd >= 0; --dd) {
        std::string o = tile.off[static_cast<size_t>(dd)];
        if (dd == dc && !cols.empty()) o = "(" + o + " + " + cols + ")";
        call += ", static_cast<int32_t>(" + o + ")";
      }
      return call + ");";
    };
    for (int64_t sl = 0; sl < per; ++sl)
      s.line(store_box(tm, sl * slice_bytes,
                       chunks > 1 ? std::to_string(slice_cols) + " * (" + std::to_string(per) + " * ch" + (sl ? " + " + std::to_string(sl) : "") + ")"
                       : sl       ? std::to_string(sl * slice_cols)
                                  : ""));
    if (tail_cols)
      s.line(store_box(plan.tail_tm, slices * slice_bytes, slices ? std::to_string(slices * slice_cols) : "") + "  // the last " +
             std::to_string(tail_cols) + " columns");
    s.line(outer + "  loom::rt::tma_store_commit();");
    s.line(outer + "}");
    if (chunks > 1) s.line("    }");
    s.line("  } else {  // straight from registers");
    s.indent += 2;
    emit_direct_store(s, tile, rank, P, T, xt, blocks, value);
    s.indent -= 2;
    s.line("  }");
  } else {
    emit_direct_store(s, tile, rank, P, T, xt, blocks, value);
  }
  s.line("}");
}

// How a warpgroup's tile of D (view `tile`) of `slices` 128-byte swizzle slices of `rows` rows x
// `slice_cols` columns is staged: `per` slices at a time (all of them, unless the kernel's shared
// memory cannot hold that: set_stage_slices), stored chunk after chunk by TMA boxes of one slice.
CudaGen::StagePlan CudaGen::stage_plan(const View& d, const View& tile, int64_t slices, int64_t rows, int64_t slice_cols,
                                       int64_t tail_cols) {
  StagePlan p;
  p.slice_bytes = rows * 128;
  p.per = slices ? std::min(slices, stage_slices_) : 0;
  while (p.per && slices % p.per) --p.per;
  p.chunks = p.per ? slices / p.per : 1;
  p.stage_tile = p.per * p.slice_bytes;
  if (tail_cols) {  // whole tiles only (emit_store): the tail's 64-byte rows after the slices
    std::vector<int64_t> box(static_cast<size_t>(f_.info(d.root).rank), 1);
    box[static_cast<size_t>(tile.dims[0])] = rows;
    box[static_cast<size_t>(tile.dims[1])] = tail_cols;
    p.tail_cols = tail_cols;
    p.tail_tm = tensor_map(d.root, box, 64, d.dtype);
    p.stage_tile += rows * 64;
  }
  stage_bytes_ = std::max(stage_bytes_, p.stage_tile);
  if (!slices) return p;  // the tail alone
  std::vector<int64_t> box(static_cast<size_t>(f_.info(d.root).rank), 1);
  box[static_cast<size_t>(tile.dims[0])] = rows;
  box[static_cast<size_t>(tile.dims[1])] = slice_cols;
  p.tm = tensor_map(d.root, box, 128, d.dtype);
  return p;
}

// When a warpgroup's tile of D (view `tile`, static extents xt) can be stored by TMA boxes: it lies
// inside D or is clipped only by D's own edges, and where it is clipped along the contiguous
// dimension D's rows are whole 16-byte units (TMA would otherwise write the row padding).
std::string CudaGen::staged_condition(const View& tile, const std::string& P, const std::vector<int64_t>& xt, int64_t eb) const {
  const int dr = tile.dims[0], dc = tile.dims[1];
  const std::string E0 = tile.ext[0], E1 = tile.ext[1];
  const std::string offr = tile.off[static_cast<size_t>(dr)], offc = tile.off[static_cast<size_t>(dc)];
  const std::string shr = P + ".shape[" + std::to_string(dr) + "]", shc = P + ".shape[" + std::to_string(dc) + "]";
  return E0 + " > 0 && " + E1 + " > 0 && (" + E0 + " == " + std::to_string(xt[0]) + " || " + offr + " + " + E0 + " == " + shr +
         ") && (" + E1 + " == " + std::to_string(xt[1]) + " || (" + offc + " + " + E1 + " == " + shc + " && (" + shc + " * " +
         std::to_string(eb) + ") % 16 == 0))";
}

// The store of a transposed accumulator fragment (wgmma.cpp, emit_wgmma_transposed): register i of
// thread t holds D[acc_col(t, i)][acc_row(t, i) + 64 b] of the warpgroup's tile (b its 64-column
// block), so a register pair is two rows of one column. Staged as emit_store does, with
// stmatrix.trans: each 8 x 8 block of C^T lands transposed in the staging tile (one 128-byte
// swizzle slice per 64-column block: the tile's rows x 64 columns), and one thread stores the
// slices by TMA; else element by element from registers.
void CudaGen::emit_transposed_store(Stream& s, const Op& op, const Frag& xf,
                                    const std::function<std::string(const std::string&)>& value) {
  const View& d = view(op.operands[0]);
  const View& tile = view(d.frag->tile);
  const int rank = f_.info(d.root).rank;
  const auto xt = tile_static(xf, &op);          // M x N of D's tile
  const int64_t blocks = frag_row_blocks(xf, &op);  // its 64-column blocks
  const int64_t half = xt[0] / 2;                 // registers per column block
  const std::string P = pname(d.root), T = cpp_type(d.dtype);
  const std::string E0 = tile.ext[0], E1 = tile.ext[1];
  const int64_t eb = dtype_bytes(d.dtype);
  const bool stageable = staging_allowed_ && &s == &compute_ && eb == 2 && xt[0] % 16 == 0 && xt[0] <= 256 &&
                         xt[1] == 64 * blocks && store_only(d.root);
  auto reg = [&](const std::string& b, const std::string& i) { return value(b == "0" ? i : b + " * " + std::to_string(half) + " + " + i); };
  s.line("{  // the warpgroup's " + std::to_string(xt[0]) + " x " + std::to_string(xt[1]) + " accumulator tile (held transposed) -> " +
         P + ", clipped to " + E0 + " x " + E1);
  s.line("  const int tid = loom::rt::thread_in_warpgroup();");
  std::string in = "  ";
  if (stageable) {
    const StagePlan plan = stage_plan(d, tile, blocks, xt[0], 64);  // one slice per 64-column block
    const int64_t slice_bytes = plan.slice_bytes, per = plan.per, chunks = plan.chunks, stage_tile = plan.stage_tile;
    const int dc = tile.dims[1];
    const std::string& tm = plan.tm;
    s.line("  // staged when the box is clipped only by " + P + "'s edges (TMA skips what lies past them)");
    s.line("  const bool staged = " + staged_condition(tile, P, xt, eb) + ";");
    s.line("  if (staged) {  // through this warpgroup's staging tile: " + std::to_string(blocks) + " slices of " +
           std::to_string(xt[0]) + " rows x 128 bytes, 128-byte swizzle" +
           (chunks > 1 ? ", " + std::to_string(per) + " at a time" : ""));
    s.line("    uint8_t* const stage = loom_stage + consumer_wg * " + std::to_string(stage_tile) + ";");
    // Lane l gives row l & 7 of matrix l >> 3; matrices 0, 1 are C^T's rows 16 w .. + 7 and + 8 ..
    // of column group c, matrices 2, 3 the same of group c + 1; stored transposed, a matrix's row
    // is D's row 8 cg + (l & 7), its 8 columns D's columns 16 w + 8 ((l >> 3) & 1) .. of the slice.
    s.line("    const int lane = loom::rt::lane_id(), chunk = 2 * (tid / 32) + ((lane >> 3) & 1);");
    in = "    ";
    s.line(in + "#pragma unroll");
    s.line(in + "for (int ch = 0; ch < " + std::to_string(chunks) + "; ++ch) {  // column blocks " + std::to_string(per) +
           " ch .. " + std::to_string(per) + " ch + " + std::to_string(per - 1));
    s.line(in + "  if (tid == 0) loom::rt::tma_store_wait<0>();  // the previous store has read the staging tile");
    s.line(in + "  loom::rt::named_barrier_sync(1 + consumer_wg, 128);  // staging tile free");
    s.line(in + "  #pragma unroll");
    s.line(in + "  for (int sl = 0; sl < " + std::to_string(per) + "; ++sl) {");
    s.line(in + "    const int rb = " + std::to_string(per) + " * ch + sl;  // the 64-column block");
    s.line(in + "    #pragma unroll");
    s.line(in + "    for (int c = 0; c < " + std::to_string(xt[0] / 8) + "; c += 2) {  // 8x8 blocks of C^T: column groups c, c + 1");
    s.line(in + "      const int mrow = 8 * (c + (lane >> 4)) + (lane & 7);");
    s.line(in + "      uint8_t* const row = stage + sl * " + std::to_string(slice_bytes) + " + mrow * 128 + ((chunk ^ (mrow % 8)) * 16);");
    s.line(in + "      loom::rt::stmatrix_x4_trans(row, loom::rt::pack2<" + T + ">(" + reg("rb", "4 * c") + ", " + reg("rb", "4 * c + 1") +
           "), loom::rt::pack2<" + T + ">(" + reg("rb", "4 * c + 2") + ", " + reg("rb", "4 * c + 3") + "),");
    s.line(in + "                                  loom::rt::pack2<" + T + ">(" + reg("rb", "4 * c + 4") + ", " + reg("rb", "4 * c + 5") +
           "), loom::rt::pack2<" + T + ">(" + reg("rb", "4 * c + 6") + ", " + reg("rb", "4 * c + 7") + "));");
    s.line(in + "    }");
    s.line(in + "  }");
    s.line(in + "  loom::rt::fence_proxy_async_shared();  // the stmatrix writes before the TMA store reads them");
    s.line(in + "  loom::rt::named_barrier_sync(1 + consumer_wg, 128);  // staging tile written");
    s.line(in + "  if (tid == 0) {");
    s.line(in + "    #pragma unroll");
    s.line(in + "    for (int sl = 0; sl < " + std::to_string(per) + "; ++sl)");
    std::string call = in + "      loom::rt::tma_store_" + std::to_string(rank) + "d(&" + tm + ", stage + sl * " + std::to_string(slice_bytes);
    for (int dd = rank - 1; dd >= 0; --dd) {
      std::string o = tile.off[static_cast<size_t>(dd)];
      if (dd == dc) o = "(" + o + " + 64 * (" + std::to_string(per) + " * ch + sl))";
      call += ", static_cast<int32_t>(" + o + ")";
    }
    s.line(call + ");");
    s.line(in + "    loom::rt::tma_store_commit();");
    s.line(in + "  }");
    s.line(in + "}");
    s.line("  } else {  // straight from registers");
    in = "    ";
  }
  // Direct. A register pair is two rows of one column: per 8 x 8 block of D (rows 8 j .., the 8
  // columns 16 w + 8 h .. of warp w's 16 in the 64-column block rb), lane l holds rows 8 j + 2 (l % 4)
  // and + 1 of column l / 4, an ldmatrix fragment of the block's transpose. movmatrix.trans turns
  // it into lane l's columns 2 (l % 4), + 1 of row 8 j + l / 4 (the untransposed layout); then, per
  // two row groups, a transposition inside each quad (emit_direct_store's) gives lane q of a quad the
  // 8 columns 8 (q & 1) .. of row group 2 jj + (q >> 1): one 16-byte store, and each warp store writes
  // whole 32-byte sectors (16 rows x 32 bytes). An odd last row group is stored a pair at a time.
  const std::string rs = P + ".stride[" + std::to_string(tile.dims[0]) + "]";
  const int64_t groups = xt[0] / 8;  // 8-row groups of D
  auto block_pair = [&](const std::string& j, const std::string& h) {  // the packed pair of block (j, h), transposed
    const std::string i = "4 * (" + j + ") + 2 * " + h;
    return "loom::rt::movmatrix_trans(loom::rt::pack2<" + T + ">(" + reg("rb", i) + ", " + reg("rb", i + " + 1") + "))";
  };
  s.line(in + T + "* const out = " + tile_origin(tile, rank, P, T) + ";");
  s.line(in + "const int lane = loom::rt::lane_id(), quad_lane = lane & 3;");
  s.line(in + "#pragma unroll");
  s.line(in + "for (int rb = 0; rb < " + std::to_string(blocks) + "; ++rb) {  // 64-column blocks");
  s.line(in + "  const int64_t col0 = 64 * rb + 16 * (tid / 32);  // this warp's 16 columns of the block");
  if (groups >= 2) {
    s.line(in + "  #pragma unroll");
    s.line(in + "  for (int jj = 0; jj < " + std::to_string(groups / 2) + "; ++jj) {  // row groups 2 jj, 2 jj + 1");
    s.line(in + "    uint32_t pairs[4], mine[4];  // pairs[t]: block (2 jj + (t >> 1), t & 1), transposed");
    s.line(in + "    #pragma unroll");
    s.line(in + "    for (int t = 0; t < 4; ++t) pairs[t] = " + block_pair("2 * jj + (t >> 1)", "(t & 1)") + ";");
    s.line(in + "    loom::rt::quad_gather(pairs, mine);  // mine: columns col0 + 8 (quad_lane & 1) .. + 7 of the row");
    s.line(in + "    const int64_t row = 16 * jj + 8 * (quad_lane >> 1) + (lane >> 2), col = col0 + 8 * (quad_lane & 1);");
    s.line(in + "    if (row >= " + E0 + ") continue;");
    emit_chunk_store(s, in + "    ", T, "out + row * " + rs + " + col", "col", E1, async_copy_);
    s.line(in + "  }");
  }
  if (groups % 2) {
    const std::string j = std::to_string(groups - 1);
    s.line(in + "  #pragma unroll");
    s.line(in + "  for (int h = 0; h < 2; ++h) {  // the last row group " + j + ", a pair at a time");
    s.line(in + "    const uint32_t pair = " + block_pair(j, "h") + ";");
    s.line(in + "    const int64_t row = " + std::to_string(8 * (groups - 1)) + " + (lane >> 2), col = col0 + 8 * h + 2 * quad_lane;");
    s.line(in + "    if (row >= " + E0 + ") continue;");
    emit_pair_store(s, in + "    ", T, "out + row * " + rs + " + col", "col", E1, async_copy_);
    s.line(in + "  }");
  }
  s.line(in + "}");
  if (stageable) s.line("  }");
  s.line("}");
}

// Whether the kernel touches global tensor `root` only as the destination of element-wise stores
// (nothing reads it, so async-proxy TMA stores need no ordering against later generic reads).
bool CudaGen::store_only(ValueId root) {
  bool ok = true;
  auto visit = [&](const ir::Block& b, auto&& self) -> void {
    for (const Op& op : b.ops) {
      for (const ir::Block& r : op.regions) self(r, self);
      if (op.kind != OpKind::Copy && op.kind != OpKind::Call) continue;
      for (size_t i = 0; i < op.operands.size(); ++i) {
        ValueId v = op.operands[i];
        if (f_.info(v).type != ir::Type::Tensor || view(v).root != root) continue;
        const LeafOp* lo = op.kind == OpKind::Call ? find_leaf_op(op.name) : nullptr;
        const bool pure_write = lo && (is_elementwise(lo->family) || lo->family == OpFamily::Fill);
        if (i != 0 || !pure_write) ok = false;
      }
    }
  };
  visit(*kernel_, visit);
  return ok;
}

// The direct epilogue store (see emit_store): `tid` is declared by the caller.
void CudaGen::emit_direct_store(Stream& s, const View& tile, int rank, const std::string& P, const std::string& T,
                                const std::vector<int64_t>& xt, int64_t blocks,
                                const std::function<std::string(const std::string&)>& value_in) {
  // A fragment of `blocks` row blocks of 64 rows: one pass per row block (rb), its rows 64 rb
  // further down and its registers rb xt[1] / 2 further on.
  const std::string half = std::to_string(xt[1] / 2);
  auto value = [&](const std::string& i) { return value_in(blocks > 1 ? "rb * " + half + " + " + i : i); };
  if (blocks > 1) {
    s.line("  #pragma unroll");
    s.line("  for (int rb = 0; rb < " + std::to_string(blocks) + "; ++rb) {  // row blocks of 64 rows");
    s.indent += 2;
  }
  const std::string rs = P + ".stride[" + std::to_string(tile.dims[0]) + "]";
  const std::string E0 = tile.ext[0], E1 = tile.ext[1];
  s.line("  " + T + "* const out = " + tile_origin(tile, rank, P, T) + ";");
  s.line("  const int quad_lane = tid & 3;");
  s.line(std::string("  const int64_t row0 = loom::rt::acc_row(tid, 0)") + (blocks > 1 ? " + 64 * rb" : "") + ";");
  if (xt[1] % 32 == 0) {
    // The four lanes of a quad hold two columns each of every 8-column group; a transpose inside
    // the quad (four shuffles of packed pairs) gives each lane 8 consecutive columns of one row:
    // one 16-byte store, and every warp store writes whole 32-byte sectors.
    s.line("  #pragma unroll");
    s.line("  for (int jj = 0; jj < " + std::to_string(xt[1] / 32) + "; ++jj) {");
    s.line("    #pragma unroll");
    s.line("    for (int h = 0; h < 2; ++h) {");
    s.line("      uint32_t pairs[4], mine[4];  // pairs[t]: this lane's 2 columns of group 4 jj + t");
    s.line("      #pragma unroll");
    s.line("      for (int t = 0; t < 4; ++t) pairs[t] = loom::rt::pack2<" + T + ">(" + value("(4 * jj + t) * 4 + 2 * h") + ", " +
           value("(4 * jj + t) * 4 + 2 * h + 1") + ");");
    s.line("      loom::rt::quad_gather(pairs, mine);  // mine: columns 32 jj + 8 quad_lane .. + 7 of the row");
    s.line("      const int64_t row = row0 + 8 * h, col = 32 * jj + 8 * quad_lane;");
    s.line("      if (row >= " + E0 + ") continue;");
    emit_chunk_store(s, "      ", T, "out + row * " + rs + " + col", "col", E1, async_copy_);
    s.line("    }");
    s.line("  }");
  } else {
    s.line("  #pragma unroll");
    s.line("  for (int r = 0; r < " + std::to_string(xt[1] / 2) + "; r += 2) {");
    s.line(std::string("    const int64_t row = loom::rt::acc_row(tid, r)") + (blocks > 1 ? " + 64 * rb" : "") +
           ", col = loom::rt::acc_col(tid, r);");
    s.line("    if (row >= " + E0 + ") continue;");
    s.line("    const uint32_t pair = loom::rt::pack2<" + T + ">(" + value("r") + ", " + value("r + 1") + ");");
    emit_pair_store(s, "    ", T, "out + row * " + rs + " + col", "col", E1, async_copy_);
    s.line("  }");
  }
  if (blocks > 1) {
    s.indent -= 2;
    s.line("  }");
  }
}

}  // namespace loom::codegen::detail
