// DMA: global -> shared copies as TMA loads (one box per swizzle slice, completing on an mbarrier
// with expect-tx bytes), the tensor maps they use, and the shared tiles and layouts they fill. The
// async-copy variant fills the same tiles another way (async_copy.cpp).
#include "codegen/cuda_gen.h"

#include <algorithm>
#include <cstdio>

namespace loom::codegen::detail {

bool CudaGen::is_tma_copy(const Op& op) {
  return op.kind == OpKind::Copy && op.name.empty() && f_.info(op.operands[0]).mem == MemKind::Global &&
         f_.info(op.operands[1]).mem == MemKind::Shared;
}

void CudaGen::emit_copy(Stream& s, const Op& op, const Op* loop) {
  if (!is_tma_copy(op)) {
    cannot(&op, std::string("a ") + (op.name.empty() ? "" : op.name + " ") + "copy from " +
                    mem_name(f_.info(op.operands[0]).mem) + " to " + mem_name(f_.info(op.operands[1]).mem));
  }
  if (&s != &dma_) cannot(&op, "a global -> shared copy outside the DMA role (warp specialization is off)",
                          "map the K loop's instance with `warpspecialize`");
  if (auto it = release_wait_.find(&op); it != release_wait_.end()) {
    const Barrier& b = barriers_[static_cast<size_t>(it->second)];
    s.line("if (tile_iter > 0) loom::rt::mbarrier::wait(&" + b.name + "[0], (tile_iter - 1) & 1);  // " + b.comment +
           " (the previous tile)");
  }
  const View& src = view(op.operands[0]);
  const View& dst = view(op.operands[1]);
  if (!src.param) cannot(&op, "a TMA copy from a global temporary");
  if (src.dims.size() != 2 || dst.dims.size() != 2) cannot(&op, "a TMA copy of rank " + std::to_string(src.dims.size()));
  auto [tile_ptr, rows, cols, layout] = smem_tile(dst, &op);
  const int rank = static_cast<int>(f_.info(src.root).rank);
  // A column-major tile (and tensor) stores its last two dimensions transposed: the tile is
  // `cols` physical rows of `rows` contiguous elements, and the tensor's next-to-last dimension
  // is contiguous in memory (TMA does not transpose 16-bit data, so both must agree).
  const bool cm = layout.col_major;
  if (cm != param_col_major(src.root))
    cannot(&op, cm ? "a column-major shared tile of a row-major global tensor" : "a row-major shared tile of a column-major global tensor",
           "give the tensor the same order in the entry instance's layout(...) and in the staging instance's");
  if (src.dims[0] != rank - 2 || src.dims[1] != rank - 1)
    cannot(&op, "a TMA copy of a tile that is not in the tensor's last two dimensions");
  const int64_t eb = dtype_bytes(src.dtype);
  const int64_t inner = cm ? rows : cols, outer = cm ? cols : rows;  // physical row length, physical rows
  const int inner_dim = cm ? rank - 2 : rank - 1, outer_dim = cm ? rank - 1 : rank - 2;
  check_tile_layout(layout, inner * eb, &op);
  const int64_t span = layout.swizzle ? layout.swizzle : 0;
  int64_t box_inner = inner, slices = 1;
  if (span && inner * eb > span) {
    if ((inner * eb) % span) LOOM_INTERNAL("TMA copy: a padded row of " << inner << " elements is not whole swizzle slices");
    box_inner = span / eb;
    slices = inner * eb / span;
  }
  if (!span && inner > 256) cannot(&op, "an unswizzled tile wider than 256 elements");
  if (outer > 256) cannot(&op, "a tile of more than 256 rows (a TMA box dimension)");
  // The barrier: one per copy op, a ring of the loop's pipeline depth. TMA arrives once (with the
  // tile's bytes); in the async-copy variant every producer thread arrives.
  const int64_t R = loop ? std::max<int64_t>(1, loop->pipeline_depth) : 1;
  const std::string bar = tma_barrier(op);
  if (owns_tma_barrier(op))
    barriers_.push_back(Barrier{bar, R, async_copy_ ? std::to_string(128 * dma_wgs_) : "1",
                                (async_copy_ ? "async copy " : "TMA ") + names_[static_cast<size_t>(op.operands[0])] + " -> " +
                                    names_[static_cast<size_t>(op.operands[1])] + " landed"});
  const std::string slot = loop ? iter(loop) + " % " + std::to_string(R) : "0";
  if (async_copy_) {
    emit_async_copy(s, op, src, tile_ptr, outer, inner, outer_dim, inner_dim, layout.swizzle, bar, slot);
    return;
  }
  std::vector<int64_t> box(static_cast<size_t>(rank), 1);
  box[static_cast<size_t>(outer_dim)] = outer;
  box[static_cast<size_t>(inner_dim)] = box_inner;
  const int64_t bytes = rows * cols * eb;
  bytes_of_[&op] = bytes;
  bytes_root_[&op] = src.root;
  if (auto mc = mc_copies_.find(&op); mc != mc_copies_.end()) {
    // multicast.cpp: every block receives the whole tile; this block issues its share for all.
    const int64_t S = mc_share_count(mc->second);
    const int64_t band = mc->second.by_rows ? mc->second.band : outer;
    // Bands that overshoot the tile (S bands of whole atoms, more rows than the tile's) overlap: their
    // rows land twice, and the barrier counts every byte that lands.
    const int64_t landed = mc->second.by_rows ? S * band * inner * eb : bytes;
    bytes_of_[&op] = landed / S;
    landed_of_[&op] = landed;
    box[static_cast<size_t>(outer_dim)] = band;
    const std::string tm = tensor_map(src.root, box, layout.swizzle, src.dtype);
    const std::string mask = mc_share_mask(mc->second), rank_of = mc_share_rank(mc->second);
    s.line("loom::rt::mbarrier::arrive_expect_tx(&" + bar + "[" + slot + "], " + std::to_string(landed) +
           ");  // the whole tile lands here, a share from each block of the cluster" + std::string(multicast_ == S ? "" : " that shares it") +
           (landed > bytes ? " (" + std::to_string(landed - bytes) + " bytes twice: the bands overlap)" : ""));
    auto coords = [&](const std::string& sl, const std::string& row) {
      std::string c;
      for (int d : physical_order(src.root)) {
        std::string o = src.off[static_cast<size_t>(d)];
        if (d == inner_dim && !sl.empty()) o = "(" + o + " + " + sl + " * " + std::to_string(box_inner) + ")";
        if (d == outer_dim && !row.empty()) o = "(" + o + " + " + row + ")";
        c += ", static_cast<int32_t>(" + o + ")";
      }
      return c;
    };
    const std::string fn = "loom::rt::tma_load_" + std::to_string(rank) + "d_multicast(";
    const std::string tail = ", &" + tm + ", &" + bar + "[" + slot + "], " + mask;
    // multicast(S, T): the blocks that share this copy are one row or column of the cluster
    const std::string who = multicast_ == S ? "every block of its cluster" : "the " + std::to_string(S) + " blocks of its cluster that share it";
    const std::string what = mc_what();
    const std::string& r = rank_of;
    if (mc->second.by_rows) {
      // Bands of whole atoms that overshoot the tile end at its last row (multicast_split).
      const bool overlap = band * S > outer;
      const std::string b = std::to_string(band);
      if (overlap)
        s.line("// " + what + ": this block loads rows [b, b + " + b + "), b = min(" + b + " " + r + ", " + std::to_string(outer - band) +
               "), of the tile for " + who + " (" + std::to_string(outer / 8) + " 8-row atoms in " + std::to_string(S) +
               " bands of " + std::to_string(band / 8) + ")");
      else
        s.line("// " + what + ": this block loads rows [" + b + " " + r + ", " + b + " (" + r + " + 1)) of the tile for " + who);
      const std::string row = overlap ? "loom_min(" + r + " * " + b + ", " + std::to_string(outer - band) + ")" : r + " * " + b;
      for (int64_t sl = 0; sl < slices; ++sl)
        s.line(fn + tile_ptr + " + " + std::to_string(sl * outer * box_inner) + " + " + row + " * " + std::to_string(box_inner) + tail +
               coords(sl ? std::to_string(sl) : "", row) + ");");
    } else if (slices == S) {
      s.line("// " + what + ": this block loads slice " + r + " of the tile for " + who);
      s.line(fn + tile_ptr + " + " + r + " * " + std::to_string(outer * box_inner) + tail + coords(r, "") + ");");
    } else {
      s.line("// " + what + ": this block loads slices " + r + ", " + r + " + " + std::to_string(S) +
             ", ... of the tile for " + who);
      s.line("for (uint32_t sl = " + r + "; sl < " + std::to_string(slices) + "; sl += " + std::to_string(S) + ")");
      s.line("  " + fn + tile_ptr + " + sl * " + std::to_string(outer * box_inner) + tail + coords("sl", "") + ");");
    }
    return;
  }
  const std::string tm = tensor_map(src.root, box, layout.swizzle, src.dtype);
  s.line("loom::rt::mbarrier::arrive_expect_tx(&" + bar + "[" + slot + "], " + std::to_string(bytes) + ");");
  for (int64_t sl = 0; sl < slices; ++sl) {
    std::vector<std::string> c;  // innermost first, in the tensor map's dimension order
    for (int d : physical_order(src.root)) {
      std::string o = src.off[static_cast<size_t>(d)];
      if (d == inner_dim && sl) o = "(" + o + " + " + std::to_string(sl * box_inner) + ")";
      c.push_back("static_cast<int32_t>(" + o + ")");
    }
    std::string dstp = tile_ptr + (sl ? " + " + std::to_string(sl * outer * box_inner) : "");
    std::string call = "loom::rt::tma_load_" + std::to_string(rank) + "d(" + dstp + ", &" + tm + ", &" + bar + "[" + slot + "]";
    for (auto& x : c) call += ", " + x;
    s.line(call + ");");
  }
}

// The shared-tile layouts this back end lays out: 32/64/128-byte swizzle with rows of whole
// swizzle spans (the TMA boxes and the wgmma descriptors agree on them). An unswizzled tile, or a
// row narrower than (or not a multiple of) the span, would need another descriptor layout.
void CudaGen::check_tile_layout(const ir::TileLayout& layout, int64_t row_bytes, const Op* at) {
  if (layout.swizzle == 0)
    cannot(at, "an unswizzled shared tile", "give the tensor a swizzle in the mapping, e.g. layout(A: row_major swizzle128)");
  if (row_bytes < layout.swizzle || row_bytes % layout.swizzle != 0)
    cannot(at, "a shared tile whose rows (" + std::to_string(row_bytes) + " bytes) are not a multiple of its " +
                   std::to_string(layout.swizzle) + "-byte swizzle",
           "choose a swizzle no wider than a row (swizzle32/64/128), or a wider tile");
}

// A shared view that is one whole tile of its alloc: the alloc's last two dimensions, every
// leading one (a pipeline ring's stage) fixed. Returns the tile's pointer expression, its static
// rows and columns, and the layout.
std::tuple<std::string, int64_t, int64_t, ir::TileLayout> CudaGen::smem_tile(const View& v, const Op* at) {
  if (v.mem != MemKind::Shared || v.param) cannot(at, "a shared tile that is not a shared alloc");
  const Op* alloc = def_.at(v.root);
  const int rank = f_.info(v.root).rank;
  if (rank < 2 || v.dims.size() != 2 || v.dims[0] != rank - 2 || v.dims[1] != rank - 1)
    cannot(at, "a shared view that is not a tile of its alloc's last two dimensions");
  auto ext = static_extents(v.root, at);
  int64_t rows = ext[static_cast<size_t>(rank - 2)], cols = ext[static_cast<size_t>(rank - 1)];
  // Rows of whole swizzle spans (ir::padded_row, as resource allocation sized the slot): a
  // 224-column tile is laid out, loaded and addressed as 256 columns.
  const int64_t eb = dtype_bytes(f_.info(v.root).dtype);
  if (alloc->layout.col_major) rows = ir::padded_row(alloc->layout, rows, eb);
  else cols = ir::padded_row(alloc->layout, cols, eb);
  std::string lin = "0";
  for (int d = 0; d < rank - 2; ++d) lin = "(" + lin + ") * " + std::to_string(ext[static_cast<size_t>(d)]) + " + " + v.off[static_cast<size_t>(d)];
  std::string ptr = var(v.root) + " + (" + lin + ") * " + std::to_string(rows * cols);
  return {ptr, rows, cols, alloc->layout};
}

// Whether the entry gives tensor parameter `root` a column-major layout (ir::Function::param_layouts).
bool CudaGen::param_col_major(ValueId root) const {
  auto it = f_.param_layouts.find(root);
  return it != f_.param_layouts.end() && it->second.col_major;
}

// A tensor parameter's dimensions from the contiguous one outwards: its tensor map's order and
// the order of the ABI's stride checks (row-major: last .. 0; column-major: the last two swapped).
std::vector<int> CudaGen::physical_order(ValueId root) const {
  const int rank = f_.info(root).rank;
  std::vector<int> order;
  for (int d = rank - 1; d >= 0; --d) order.push_back(d);
  if (rank >= 2 && param_col_major(root)) std::swap(order[0], order[1]);
  return order;
}

std::string CudaGen::tensor_map(ValueId param, const std::vector<int64_t>& box, int swizzle, DType dt) {
  for (const TensorMap& t : maps_)
    if (t.param == param && t.box == box && t.swizzle == swizzle) return t.name;
  TensorMap t{"tm_" + pname(param) + "_" + std::to_string(maps_.size()), param, box, swizzle, dt};
  maps_.push_back(t);
  return t.name;
}

}  // namespace loom::codegen::detail
