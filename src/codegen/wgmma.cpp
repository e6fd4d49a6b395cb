// Tensor cores: `mma` on wgmma fragments as a warpgroup's wgmma.mma_async sequence over the tile's K,
// the accumulator fragment in registers (the wgmma register order) and the shared-memory operand
// descriptors.
#include "codegen/cuda_gen.h"

namespace loom::codegen::detail {

bool CudaGen::is_wgmma(const Op& op) {
  if (op.kind != OpKind::Call || op.name != "mma" || op.operands.size() != 3) return false;
  const View& a = view(op.operands[1]);
  return a.frag.has_value();
}

// The fragment a REGISTER alloc holds: its extents are the dims of a thread's mma fragment.
ValueId CudaGen::register_origin(ValueId v) const {
  for (;;) {
    auto d = def_.find(v);
    if (d == def_.end()) return kNone;
    const Op& op = *d->second;
    if (op.kind == OpKind::Alloc) return op.mem == MemKind::Register ? v : kNone;
    if (op.kind != OpKind::Piece || op.part.kind != PartitionSpec::Kind::Blocks || op.operands.size() != op.part.block.size() + 1)
      return kNone;
    for (size_t i = 1; i < op.operands.size(); ++i) {
      auto c = def_.find(op.operands[i]);
      if (c == def_.end() || c->second->kind != OpKind::Const || c->second->ival != 0) return kNone;
    }
    v = op.operands[0];
  }
}

// The thread's mma fragment whose dims `extents` are, dimension by dimension (`dim X, i` of one X).
std::optional<Frag> CudaGen::fragment_of_extents(const std::vector<ValueId>& extents) {
  ValueId src = kNone;
  for (size_t i = 0; i < extents.size(); ++i) {
    auto e = def_.find(extents[i]);
    if (e == def_.end() || e->second->kind != OpKind::Dim || e->second->ival != static_cast<int64_t>(i)) return std::nullopt;
    if (src != kNone && src != e->second->operands[0]) return std::nullopt;
    src = e->second->operands[0];
  }
  if (src == kNone) return std::nullopt;
  const View& v = view(src);
  if (!v.frag || v.frag->level != 2 || v.rows) return std::nullopt;
  return v.frag;
}

std::optional<Frag> CudaGen::register_frag(ValueId reg) {
  // A clipped view of a register tile (blocks at index 0 sized by the dims of a thread's fragment of
  // a narrower tile): that fragment, whose tile's run-time extents mask the columns past it;
  // otherwise the alloc's own fragment.
  if (ValueId r = register_origin(reg); r != kNone && r != reg) {
    if (auto fr = fragment_of_extents(def_.at(reg)->part.block)) return fr;
    reg = r;
  }
  auto d = def_.find(reg);
  if (d == def_.end() || d->second->kind != OpKind::Alloc || d->second->mem != MemKind::Register) return std::nullopt;
  return fragment_of_extents(d->second->operands);
}

int64_t CudaGen::register_count(const Op& op) {
  if (auto fr = register_frag(op.result)) {
    check_acc_tile(*fr, &op);
    return frag_regs(*fr, &op);
  }
  auto ext = static_extents(op.result, &op);
  int64_t n = 1;
  for (int64_t e : ext) n *= e;
  return n;
}

void CudaGen::note_wgmma_registers(const Op& op, int64_t n, bool a_in_registers) {
  const int64_t regs = n / 2 + (a_in_registers ? 4 : 0) + kWgmmaOperandRegs;
  if (regs > widest_wgmma_regs_) widest_wgmma_ = &op, widest_wgmma_n_ = n, widest_wgmma_regs_ = regs;
}

void CudaGen::check_wgmma_registers() const {
  if (!widest_wgmma_) return;
  const Limits& l = hopper_machine().limits;
  const int64_t threads = (dma_wgs_ + compute_wgs_) * 128, step = std::max(1, l.setmaxnreg_step);
  const int64_t at_launch = std::min<int64_t>(l.regs_per_thread, l.regs_per_sm / threads) / step * step;
  if (widest_wgmma_regs_ <= at_launch) return;
  const int64_t widest = std::max<int64_t>(0, (at_launch - (widest_wgmma_regs_ - widest_wgmma_n_ / 2)) * 2 / 8 * 8);
  Diagnostic d;
  d.loc = widest_wgmma_->loc;
  d.message = "this mma's wgmma (m64n" + std::to_string(widest_wgmma_n_) + "k16) needs " + std::to_string(widest_wgmma_regs_) +
              " registers a thread at once (" + std::to_string(widest_wgmma_n_ / 2) + " accumulators and " +
              std::to_string(widest_wgmma_regs_ - widest_wgmma_n_ / 2) + " for its operands), more than the " +
              std::to_string(at_launch) + " every thread of the kernel's " + std::to_string(dma_wgs_ + compute_wgs_) +
              " warpgroups gets at launch (ptxas fits each instruction in that count, whatever setmaxnreg raises it to)";
  if (!widest_wgmma_->origin.empty()) d.message += " (from `" + widest_wgmma_->origin + "`)";
  d.hint = widest > 0 ? "a wgmma of at most n = " + std::to_string(widest) + " (the mapping's N_MMA) or fewer warpgroups in the block fits"
                      : "use fewer warpgroups in the block";
  throw CompileError(std::move(d));
}

void CudaGen::check_acc_tile(const Frag& fr, const Op* at) {
  auto t = wgmma_tile(fr, at);
  if (fr.role == MmaRole::Acc && (t[0] % 64 != 0 || t[0] > 256 || t[1] % fr.n != 0))
    cannot(at, "an accumulator tile of " + std::to_string(t[0]) + " x " + std::to_string(t[1]) +
                   (fr.transposed ? " (transposed)" : "") +
                   " per warpgroup (64, 128, 192 or 256 rows, a multiple of n columns are supported)");
}

void CudaGen::untransposed(const Frag& fr, const Op* at, const std::string& what) {
  if (fr.transposed)
    cannot(at, what + " on a transposed mma fragment (mma(..., transposed))",
           "transposed fragments take the mma, a zero fill, element-wise leaves between fragments of one tile and the "
           "epilogue store");
}

void CudaGen::one_row_block(const Frag& fr, const Op* at, const std::string& what) {
  if (frag_row_blocks(fr, at) > 1)
    cannot(at, what + " on an accumulator fragment of " + std::to_string(tile_static(fr, at)[0]) +
                   " rows per warpgroup (64 are supported there)",
           "give each warpgroup 64 rows of the tile (gemm_tile's G = M / 64)");
}

void CudaGen::emit_wgmma(Stream& s, const Op& op) {
  ValueId c = op.operands[0];
  auto cf = register_frag(c);
  const View& a = view(op.operands[1]);
  const View& b = view(op.operands[2]);
  if (!cf || !a.frag || !b.frag || a.frag->level != 2 || b.frag->level != 2 || cf->role != MmaRole::Acc ||
      a.frag->role != MmaRole::Lhs || b.frag->role != MmaRole::Rhs)
    cannot(&op, "an mma whose operands are not a thread's wgmma fragments (acc in registers, lhs and rhs)");
  if (a.dtype != b.dtype || (a.dtype != DType::BF16 && a.dtype != DType::F16) || f_.info(c).dtype != DType::F32)
    cannot(&op, "an mma on " + std::string(dtype_name(a.dtype)) + " x " + dtype_name(b.dtype) + " -> " +
                    dtype_name(f_.info(c).dtype) + " (bf16/f16 inputs, f32 accumulation are supported)");
  check_acc_tile(*cf, &op);
  if (cf->transposed != a.frag->transposed || cf->transposed != b.frag->transposed)
    cannot(&op, "an mma whose operands' mma partitions are not all transposed or all untransposed");
  accumulators_.insert(c);
  note_wgmma_registers(op, cf->transposed ? cf->n : a.frag->n, forwarded_.count(root_of(a.frag->tile)) > 0);
  if (cf->transposed) return emit_wgmma_transposed(s, op, *cf, a, b);
  const bool overwrite = overwriting_mmas_.count(&op) > 0;  // its zero fill was folded in (plan_zero_fills)
  const int64_t n = a.frag->n;
  const int64_t rb = frag_row_blocks(*cf, &op);  // row blocks: one wgmma of 64 rows each per k step and n block
  fma_of_[&op] = 64 * rb * static_extents(a.frag->tile, &op)[1] * static_extents(b.frag->tile, &op)[1] * team_wgs();
  // The warpgroup's tiles: A (64 x K) and B (K x N) in shared memory.
  const View& at = view(a.frag->tile);
  const View& bt = view(b.frag->tile);
  auto ast = static_extents(a.frag->tile, &op), bst = static_extents(b.frag->tile, &op);
  const int64_t kt = ast[1], nt = bst[1];
  if (ast[0] != 64 * rb || bst[0] != kt || kt % 16 || nt % n || nt != tile_static(*cf, &op)[1])
    cannot(&op, "an mma on tiles " + std::to_string(ast[0]) + "x" + std::to_string(ast[1]) + " and " +
                    std::to_string(bst[0]) + "x" + std::to_string(bst[1]));
  // Descriptors address 8-row core-matrix groups and whole k16 steps (and for B whole swizzle
  // slices along N): the warpgroup's tiles must start on them, e.g. warpgroup rows split with
  // `blocks(C, [64 * cdiv(M, 64 * G), *])`, not cdiv(M, G), which puts a partial tile's second
  // warpgroup at any row.
  if (!offset_multiple_of(a.frag->tile, 0, 8) || !offset_multiple_of(a.frag->tile, 1, 16) ||
      !offset_multiple_of(b.frag->tile, 0, 16) || !offset_multiple_of(b.frag->tile, 1, 64))
    cannot(&op, "an mma on a tile that may not start on an 8-row / 16-column boundary of its shared buffer",
           "split tiles between warpgroups in whole 64-row steps, e.g. blocks(C, [64 * cdiv(M, 64 * G), *])");
  auto [bdesc, b_major] = tile_desc(bt, MmaRole::Rhs, &op);
  const std::string T = cpp_type(a.dtype);
  auto acc_of = [&](int64_t nb) {  // nb counts n blocks over all row blocks: row block nb / (nt / n)
    return nt == n && rb == 1 ? var(c) : "*reinterpret_cast<float(*)[" + std::to_string(n / 2) + "]>(&" + var(c) + "[" +
                                             std::to_string(nb * n / 2) + "])";
  };
  auto b_of = [&](int64_t nb, const std::string& ks) {
    std::string bd = bdesc;
    bd.replace(bd.find("NOFF"), 4, std::to_string(nb * n));
    size_t k = bd.find("16 * ks");
    if (k != std::string::npos) bd.replace(k, 7, "16 * " + ks);
    return bd;
  };
  if (auto fw = forwarded_.find(root_of(a.frag->tile)); fw != forwarded_.end()) {
    // A from registers (rows.cpp): the tile's packed A fragments, 4 words per k step, written
    // where the tile was (emit_register_copy; columns past the tile's extent are zeros).
    const std::string A = var(fw->first);
    auto pf = register_frag(fw->second);
    if (!pf || tile_static(*pf, &op) != ast) cannot(&op, "an mma whose A operand comes from registers of another tile shape");
    one_row_block(*cf, &op, "an mma with A from registers");
    // Pinned before the fence: the compiler must not sink the packing (or the accumulator's last
    // update) past it, or ptxas serializes the wgmmas.
    s.line("loom::rt::wgmma_fence_operand(" + A + ");");
    s.line("loom::rt::wgmma_fence_operand(" + var(c) + ");");
    s.line("loom::rt::wgmma_fence();  // accumulator " + var(c) + ", A fragments " + A + " and B's smem are ready");
    for (int64_t ks = 0; ks < kt / 16; ++ks)
      for (int64_t nb = 0; nb < nt / n; ++nb)
        s.line("loom::rt::wgmma_m64nNk16_rs<" + std::to_string(n) + ", " + T + ", " + b_major + ">(" + acc_of(nb) +
               ", *reinterpret_cast<const uint32_t(*)[4]>(&" + A + "[" + std::to_string(4 * ks) + "]), " +
               b_of(nb, std::to_string(ks)) + ", " + (overwrite && ks == 0 ? "0" : "1") + ");");
    s.line("loom::rt::wgmma_commit();");
    s.groups.push_back({&op, var(c), s.scope});
    return;
  }
  // Row block r of the warpgroup's tile: A's rows 64 r .. 64 r + 63 (their own descriptor), the
  // accumulator's registers r nt / 2 ..; B is the same for every row block.
  std::vector<std::string> adescs;
  std::string a_major;
  const int rank_a = f_.info(at.root).rank;
  for (int64_t r = 0; r < rb; ++r) {
    View ar = at;
    std::string& ro = ar.off[static_cast<size_t>(rank_a - 2)];
    if (r) ro = "(" + ro + " + " + std::to_string(64 * r) + ")";
    auto [d, major] = tile_desc(ar, MmaRole::Lhs, &op);
    adescs.push_back(d);
    a_major = major;
  }
  s.line("loom::rt::wgmma_fence();  // accumulator " + var(c) + " and the operands' smem are ready");
  s.line("#pragma unroll");
  s.line("for (int ks = 0; ks < " + std::to_string(kt / 16) + "; ++ks) {");
  for (int64_t r = 0; r < rb; ++r)
    s.line("  const uint64_t da" + (rb > 1 ? std::to_string(r) : "") + " = " + adescs[static_cast<size_t>(r)] + ";" +
           (rb > 1 ? "  // rows " + std::to_string(64 * r) + " .. " + std::to_string(64 * r + 63) + " of the warpgroup's tile" : ""));
  for (int64_t r = 0; r < rb; ++r)
    for (int64_t nb = 0; nb < nt / n; ++nb)
      s.line("  loom::rt::wgmma_m64nNk16<" + std::to_string(n) + ", " + T + ", " + a_major + ", " + b_major + ">(" +
             acc_of(r * (nt / n) + nb) + ", da" + (rb > 1 ? std::to_string(r) : "") + ", " + b_of(nb, "ks") + ", " +
             (overwrite ? "ks > 0" : "1") + ");");
  s.line("}");
  s.line("loom::rt::wgmma_commit();");
  s.groups.push_back({&op, var(c), s.scope});
}

// The transposed mma (layout/partition.h): C^T = B^T A^T, the wgmma's 64-row side along the
// warpgroup tile's columns (C's N) and its n along the rows (C's M). The wgmma's A operand is B^T,
// read MN-major from B's K x N tile (transpose bit 1; row block r is B's columns 64 r ..); its B
// operand is A^T, read K-major from A's M x K tile (n block nb is A's rows nb n ..). The accumulator
// registers are C^T's wgmma fragment: register i lies at C[acc_col(t, i)][acc_row(t, i)].
void CudaGen::emit_wgmma_transposed(Stream& s, const Op& op, const Frag& cf, const View& a, const View& b) {
  ValueId c = op.operands[0];
  if (forwarded_.count(root_of(a.frag->tile)) || forwarded_.count(root_of(b.frag->tile)))
    cannot(&op, "a transposed mma with an operand from registers");
  const bool overwrite = overwriting_mmas_.count(&op) > 0;
  const int64_t n = cf.n;
  const auto ct = tile_static(cf, &op);  // M x N of C
  const int64_t rb = frag_row_blocks(cf, &op);  // 64-column blocks of C: one wgmma row block each
  auto ast = static_extents(a.frag->tile, &op), bst = static_extents(b.frag->tile, &op);
  const int64_t kt = ast[1], mt = ast[0];
  if (bst[0] != kt || kt % 16 || mt % n || mt != ct[0] || bst[1] != ct[1] || ct[1] != 64 * rb)
    cannot(&op, "a transposed mma on tiles " + std::to_string(ast[0]) + "x" + std::to_string(ast[1]) + " and " +
                    std::to_string(bst[0]) + "x" + std::to_string(bst[1]));
  fma_of_[&op] = 64 * rb * kt * mt * team_wgs();
  if (!offset_multiple_of(a.frag->tile, 0, 8) || !offset_multiple_of(a.frag->tile, 1, 16) ||
      !offset_multiple_of(b.frag->tile, 0, 16) || !offset_multiple_of(b.frag->tile, 1, 64))
    cannot(&op, "a transposed mma on a tile that may not start on an 8-row / 16-column boundary of its shared buffer (64 columns for B)",
           "split C's columns between warpgroups in whole 64-column steps, e.g. blocks(C, [*, 64 * cdiv(N, 64 * G)])");
  const View& at = view(a.frag->tile);
  const View& bt = view(b.frag->tile);
  const int rank_a = f_.info(at.root).rank;
  // The wgmma's B operand per n block: A's rows nb n .. nb n + n - 1 (K-major).
  std::vector<std::string> bdescs;
  std::string b_major;
  for (int64_t nb = 0; nb < mt / n; ++nb) {
    View ar = at;
    std::string& ro = ar.off[static_cast<size_t>(rank_a - 2)];
    if (nb) ro = "(" + ro + " + " + std::to_string(nb * n) + ")";
    auto [d, major] = tile_desc(ar, MmaRole::Lhs, &op);
    bdescs.push_back(d);
    b_major = major;
  }
  // The wgmma's A operand per row block: B's columns 64 r .. (MN-major).
  auto [adesc, a_major] = tile_desc(bt, MmaRole::Rhs, &op);
  const std::string T = cpp_type(a.dtype);
  auto acc_of = [&](int64_t i) {  // i = r (mt / n) + nb
    return mt == n && rb == 1 ? var(c) : "*reinterpret_cast<float(*)[" + std::to_string(n / 2) + "]>(&" + var(c) + "[" +
                                            std::to_string(i * n / 2) + "])";
  };
  s.line("loom::rt::wgmma_fence();  // accumulator " + var(c) + " (C^T) and the operands' smem are ready");
  s.line("#pragma unroll");
  s.line("for (int ks = 0; ks < " + std::to_string(kt / 16) + "; ++ks) {  // C^T += B^T A^T: B's tile is the wgmma's A, A's its B");
  for (int64_t r = 0; r < rb; ++r) {
    std::string d = adesc;
    d.replace(d.find("NOFF"), 4, std::to_string(64 * r));
    s.line("  const uint64_t da" + (rb > 1 ? std::to_string(r) : "") + " = " + d + ";" +
           (rb > 1 ? "  // C's columns " + std::to_string(64 * r) + " .. " + std::to_string(64 * r + 63) + " of the warpgroup's tile" : ""));
  }
  for (int64_t nb = 0; nb < mt / n; ++nb)
    s.line("  const uint64_t db" + (mt / n > 1 ? std::to_string(nb) : "") + " = " + bdescs[static_cast<size_t>(nb)] + ";" +
           (mt / n > 1 ? "  // C's rows " + std::to_string(nb * n) + " .. " + std::to_string(nb * n + n - 1) : ""));
  for (int64_t r = 0; r < rb; ++r)
    for (int64_t nb = 0; nb < mt / n; ++nb)
      s.line("  loom::rt::wgmma_m64nNk16<" + std::to_string(n) + ", " + T + ", " + a_major + ", " + b_major + ">(" +
             acc_of(r * (mt / n) + nb) + ", da" + (rb > 1 ? std::to_string(r) : "") + ", db" +
             (mt / n > 1 ? std::to_string(nb) : "") + ", " + (overwrite ? "ks > 0" : "1") + ");");
  s.line("}");
  s.line("loom::rt::wgmma_commit();");
  s.groups.push_back({&op, var(c), s.scope});
}

// Whether index value v is provably a multiple of m (constants, products with a multiple, sums
// and differences of multiples).
bool CudaGen::multiple_of(ValueId v, int64_t m) const {
  auto d = def_.find(v);
  if (d == def_.end()) return false;
  const Op* op = d->second;
  if (op->kind == OpKind::Const) return op->ival % m == 0;
  if (op->kind != OpKind::Arith) return false;
  if (op->name == "mul") return multiple_of(op->operands[0], m) || multiple_of(op->operands[1], m);
  if (op->name == "add" || op->name == "sub") return multiple_of(op->operands[0], m) && multiple_of(op->operands[1], m);
  return false;
}

// Whether view t starts at a multiple of m in its dimension `dim`, relative to its alloc: every
// blocks piece on the way cuts that dimension at index * size with a provable multiple.
bool CudaGen::offset_multiple_of(ValueId t, int dim, int64_t m) const {
  for (ValueId v = t;;) {
    auto d = def_.find(v);
    if (d == def_.end() || d->second->kind != OpKind::Piece) return true;  // the alloc: offset 0
    const Op* op = d->second;
    if (op->part.kind == PartitionSpec::Kind::Slices) {
      if (dim >= op->part.dim) ++dim;
    } else if (op->part.kind == PartitionSpec::Kind::Blocks) {
      ValueId b = op->part.block.at(static_cast<size_t>(dim)), idx = op->operands.at(static_cast<size_t>(dim) + 1);
      if (b != kNone && !multiple_of(b, m) && !multiple_of(idx, m)) return false;
    } else {
      return false;
    }
    v = op->operands[0];
  }
}

// The wgmma descriptor expression of a warpgroup's operand tile (a view of a shared tile: rows
// and columns offsets into it), for k-step `ks` (and N offset NOFF for B). Returns {expr, major}.
std::pair<std::string, std::string> CudaGen::tile_desc(const View& v, MmaRole role, const Op* at) {
  View whole = v;
  const int rank = f_.info(v.root).rank;
  // The alloc tile the view lies in: the same root with the leading offsets, rows/cols at 0.
  whole.off[static_cast<size_t>(rank - 2)] = "0";
  whole.off[static_cast<size_t>(rank - 1)] = "0";
  auto [ptr, rows, cols, layout] = smem_tile(whole, at);
  if (layout.col_major && role != MmaRole::Rhs) cannot(at, "a column-major shared A operand tile");
  check_tile_layout(layout, (layout.col_major ? rows : cols) * dtype_bytes(v.dtype), at);
  const std::string sw = swizzle_enum(layout.swizzle);
  const std::string ro = v.off[static_cast<size_t>(rank - 2)], co = v.off[static_cast<size_t>(rank - 1)];
  const int64_t span = layout.swizzle ? layout.swizzle : 16;
  const int64_t per_slice = span / dtype_bytes(v.dtype);
  if (layout.col_major) {
    // B is K x N stored column-major (N physical rows of K contiguous elements): K-major, like A;
    // the N offset picks the physical row.
    return {"loom::rt::desc_k_major(" + ptr + " + (" + co + " + NOFF) * " + std::to_string(per_slice) + " + (" + ro + "), " + sw +
                ", " + std::to_string(cols) + ", 16 * ks)",
            "0"};
  }
  if (role == MmaRole::Lhs) {
    // A is M x K with K contiguous: K-major. The warpgroup's rows start `ro` rows into each slice.
    return {"loom::rt::desc_k_major(" + ptr + " + (" + ro + ") * " + std::to_string(per_slice) + " + (" + co + "), " + sw +
                ", " + std::to_string(rows) + ", 16 * ks)",
            "0"};
  }
  // B is K x N with N contiguous: MN-major. N offset (a multiple of the slice width) picks the slice.
  return {"loom::rt::desc_mn_major(" + ptr + " + ((" + co + " + NOFF) / " + std::to_string(per_slice) + ") * " +
              std::to_string(rows * per_slice) + " + (" + ro + ") * " + std::to_string(per_slice) + ", " + sw + ", " +
              std::to_string(rows) + ", 16 * ks)",
          "1"};
}

}  // namespace loom::codegen::detail
