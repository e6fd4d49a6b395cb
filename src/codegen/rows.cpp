// Row statistics on accumulator fragments (the online softmax of attention, row sums of GEMM +
// reduction): row vectors in registers, their reductions across lanes, and register operands that
// the IR stages through shared memory but the tensor cores can take from registers.
//
//   * A row vector is a rank-1 tensor cut by `mma(acc, ...)` partitions like the rows of an
//     accumulator tile. A thread's piece is its 2 rows of the warpgroup's 64, acc_row(t, 0) and
//     acc_row(t, 2) (F1): register i of the piece is row half i, and register r of a thread's
//     64 x N accumulator fragment lies in row half (r >> 1) & 1, which is how a row operand is
//     broadcast along a fragment's rows. A warpgroup holding 64 R rows (R row blocks, wgmma.cpp)
//     gives each thread 2 R of them: register 2 b + h of the piece is row half h of row block b,
//     row acc_row(t, 2 h) + 64 b, and register r of the fragment (N / 2 per row block) lies in row
//     block r / (N / 2).
//   * Promotion: a SHARED row vector (one per warp) that is only read and written through its
//     lanes' pieces, and by whole copies to other such vectors, lives in registers: every lane
//     keeps a replica of its rows (the lanes that share rows compute the same values, as the IR's
//     replicated pieces say). Nothing is stored to shared memory.
//   * A reducing copy (copy.max / copy.sum) of a thread's partial into a row piece first combines
//     the partials of the lanes that hold the same rows (the lane bits acc_row does not depend on:
//     1 and 2, a quad) with __shfl_xor_sync, then folds the result into every replica.
//   * A row reduction (rowmax / rowsum) folds the thread's columns of each row into its partial,
//     leaving out the columns past the tile's run-time extent (a clipped K/V tile: TMA fills them
//     with zeros, which must not enter a maximum or a sum).
//   * A-operand forwarding: a shared tile written only by one copy of a register fragment (the
//     accumulator layout, 16-bit) and read only as the A operand of its warpgroup's wgmma is never
//     stored: the wgmma takes A from those registers (a packed accumulator is an A fragment, F1),
//     with the columns past the tile's extent zeroed.
//   Which tensors are promoted or forwarded is one analysis, passes/register_residents.h, that
//   resource allocation also uses (such tensors take no shared memory).
#include "codegen/cuda_gen.h"
#include "passes/register_residents.h"

namespace loom::codegen::detail {

namespace {

// The accumulator row of thread t's register i (runtime/loom/runtime.cuh acc_row, F1).
int acc_row_host(int t, int i) { return 16 * (t / 32) + (t % 32) / 4 + 8 * ((i >> 1) & 1); }

// The lane masks m for which lane ^ m holds the same accumulator rows as lane, for every lane and
// register: the __shfl_xor_sync steps of a row reduction.
std::vector<int> row_sharing_lane_masks() {
  std::vector<int> out;
  for (int b = 1; b < 32; b <<= 1) {
    bool same = true;
    for (int t = 0; t < 128 && same; ++t)
      for (int i = 0; i < 4; ++i)
        if (acc_row_host(t, i) != acc_row_host((t & ~31) | ((t & 31) ^ b), i)) same = false;
    if (same) out.push_back(b);
  }
  return out;
}

std::string fold_expr(const std::string& kind, const std::string& a, const std::string& b) {
  return kind == "max" ? "fmaxf(" + a + ", " + b + ")" : "(" + a + " + " + b + ")";
}

}  // namespace

// The root tensor (alloc or parameter) a view is cut from.
ValueId CudaGen::root_of(ValueId v) const {
  for (;;) {
    auto d = def_.find(v);
    if (d == def_.end() || d->second->kind != OpKind::Piece) return v;
    v = d->second->operands[0];
  }
}

MemKind CudaGen::mem_of(ValueId v) const {
  const ValueId r = root_of(v);
  if (row_regs_.count(r) || forwarded_.count(r)) return MemKind::Register;
  return f_.info(v).mem;
}

// The shared tensors kept in registers: one analysis with resource allocation, which gives them no
// bytes (passes/register_residents.h).
void CudaGen::find_register_residents() {
  RegisterResidents rr = loom::find_register_residents(f_, kernel_);
  row_regs_ = std::move(rr.row_vectors);
  forwarded_ = std::move(rr.forwarded);
}

// A rank-1 row operand in registers: the array expression whose element 2 b + h is row half h of
// row block b (row_entries of them), or nullopt. Lanes' pieces and whole copies of promoted row
// vectors, and REGISTER arrays sized by a lane's row piece.
std::optional<std::string> CudaGen::row_array(ValueId v) {
  if (f_.info(v).type != ir::Type::Tensor || f_.info(v).rank != 1) return std::nullopt;
  const ValueId r = root_of(v);
  if (row_regs_.count(r)) {
    if (r == v) return var(r);
    const View& w = view(v);
    if (w.rows) return var(r);
    return std::nullopt;
  }
  auto d = def_.find(v);
  if (d == def_.end() || d->second->kind != OpKind::Alloc || d->second->mem != MemKind::Register) return std::nullopt;
  auto e = def_.find(d->second->operands[0]);
  if (e == def_.end() || e->second->kind != OpKind::Dim) return std::nullopt;
  if (!view(e->second->operands[0]).rows) return std::nullopt;
  return var(v);
}

// How many registers a lane's row operand has (row_array): 2 per row block of its warpgroup's rows.
int64_t CudaGen::row_entries(ValueId v) {
  const ValueId r = root_of(v);
  if (row_regs_.count(r)) return 2;  // a warp's 16 rows kept in registers (one row block, cuda_gen.cpp)
  const View& w = view(v);
  if (w.rows) return std::stoll(w.ext.at(0));
  return register_count(*def_.at(v));  // a REGISTER array sized by a lane's row piece
}

// Whether view dimension `dim` of a (tile) view is statically `width`: its extent is a constant
// (an alloc dimension that is a `const`), so no column can lie past it.
bool CudaGen::static_full(ValueId tile, int dim, int64_t width) {
  auto d = def_.find(tile);
  if (d == def_.end()) return false;
  if (d->second->kind == OpKind::Alloc) {
    auto c = def_.find(d->second->operands.at(static_cast<size_t>(dim)));
    return c != def_.end() && c->second->kind == OpKind::Const && c->second->ival == width;
  }
  if (d->second->kind != OpKind::Piece) return false;
  const Op& p = *d->second;
  if (p.part.kind == PartitionSpec::Kind::Blocks && p.part.block.at(static_cast<size_t>(dim)) == kNone)
    return static_full(p.operands[0], dim, width);  // `*`: the whole dimension
  return false;
}

void CudaGen::emit_row_reduce(Stream& s, const Op& op) {
  auto d = row_array(op.operands[0]);
  auto fr = register_frag(op.operands[1]);
  if (!d || !fr) cannot(&op, "`" + op.name + "` other than from a thread's accumulator fragment into its row vector in registers");
  untransposed(*fr, &op, "`" + op.name + "`");
  const std::string kind = op.name == "rowmax" ? "max" : "sum";
  const auto t = tile_static(*fr, &op);
  const int64_t n = t[1] / 2;  // registers per row block
  const int64_t blocks = frag_row_blocks(*fr, &op);
  if (row_entries(op.operands[0]) != 2 * blocks)
    cannot(&op, "`" + op.name + "` into a row vector of another warpgroup's rows than its fragment's");
  const std::string S = var(op.operands[1]);
  // Four independent chains per row half (register r goes to chain (r >> 2) & 3), combined at
  // the end: a quarter of the dependent latency of one chain over the row's columns.
  const int64_t chains = n >= 16 ? 4 : 1;
  const std::string ident = kind == "max" ? "-INFINITY" : "0.0f";
  // With several row blocks, the same for each: registers b n .. b n + n - 1 into row entries 2 b, 2 b + 1.
  auto loop = [&](const std::string& ind0, bool masked) {
    const std::string cond = masked ? "if (loom::rt::acc_col(tid, r) < ncols) " : "";
    std::string ind = ind0, reg = S + "[r]", row = *d + "[(r >> 1) & 1]", h0 = *d + "[0]", h1 = *d + "[1]", hh = *d + "[h]";
    if (blocks > 1) {
      s.line(ind0 + "#pragma unroll");
      s.line(ind0 + "for (int b = 0; b < " + std::to_string(blocks) + "; ++b) {  // row block b: rows 64 b ..");
      ind = ind0 + "  ";
      reg = S + "[b * " + std::to_string(n) + " + r]";
      row = *d + "[2 * b + ((r >> 1) & 1)]";
      h0 = *d + "[2 * b]";
      h1 = *d + "[2 * b + 1]";
      hh = *d + "[2 * b + h]";
    }
    if (chains == 1) {
      s.line(ind + "#pragma unroll");
      s.line(ind + "for (int r = 0; r < " + std::to_string(n) + "; ++r) " + cond + row + " = " + fold_expr(kind, row, reg) + ";");
    } else {
      s.line(ind + "float part[8] = {" + h0 + ", " + h1 + ", " + ident + ", " + ident + ", " + ident + ", " + ident + ", " + ident +
             ", " + ident + "};  // [chain * 2 + row half]");
      s.line(ind + "#pragma unroll");
      s.line(ind + "for (int r = 0; r < " + std::to_string(n) + "; ++r) " + cond + "part[((r >> 2) & 3) * 2 + ((r >> 1) & 1)] = " +
             fold_expr(kind, "part[((r >> 2) & 3) * 2 + ((r >> 1) & 1)]", reg) + ";");
      s.line(ind + "#pragma unroll");
      s.line(ind + "for (int h = 0; h < 2; ++h) " + hh + " = " +
             fold_expr(kind, fold_expr(kind, "part[h]", "part[2 + h]"), fold_expr(kind, "part[4 + h]", "part[6 + h]")) + ";");
    }
    if (blocks > 1) s.line(ind0 + "}");
  };
  const std::string its = "this thread's columns of its " + std::to_string(2 * blocks) + " rows";
  emit_by_columns(s, fr->tile, t[1], op.name + ": " + its + " (the lanes sharing a row combine theirs when it is folded in)",
                  op.name + ": " + its + ", none past the tile's " + view(fr->tile).ext[1] + " columns", loop, /*whole_tiles=*/true);
}

// body(indent, masked) over the columns of `tile` (`width` static columns): unmasked when the
// tile's extent is statically full; otherwise a uniform branch on the run-time extent `ncols`
// (with `tid`, the thread in its warpgroup, in scope) between the unmasked and the masked body,
// so that only a clipped tile pays for the mask.
void CudaGen::emit_by_columns(Stream& s, ValueId tile, int64_t width, const std::string& full_comment,
                              const std::string& clipped_comment, const std::function<void(const std::string&, bool)>& body,
                              bool whole_tiles) {
  if (static_full(tile, 1, width)) {
    s.line("{  // " + full_comment);  // a scope of its own, like the clipped form's (body may declare locals)
    body("  ", false);
    s.line("}");
    return;
  }
  if (whole_tiles) extent_branches_.push_back(view(tile).ext[1]);  // whole_tiles.cpp may fold it away
  s.line("{  // " + clipped_comment);
  s.line("  const int tid = loom::rt::thread_in_warpgroup();");
  s.line("  const int64_t ncols = " + view(tile).ext[1] + ";");
  s.line("  if (ncols >= " + std::to_string(width) + ") {");
  body("    ", false);
  s.line("  } else {");
  body("    ", true);
  s.line("  }");
  s.line("}");
}

// A copy between register residents: row vectors (plain or reducing), or the write of a forwarded
// A operand (no code: the wgmma reads the registers).
void CudaGen::emit_register_copy(Stream& s, const Op& op) {
  const ValueId src = op.operands[0], dst = op.operands[1];
  if (forwarded_.count(root_of(dst))) {
    // The tile's A fragments: the thread's 16-bit values packed in pairs (F1). Columns past the
    // tile's run-time extent are zeroed: the wgmma multiplies them with B's rows there, TMA's
    // zero fill, and 0 * inf would not be 0.
    const View& d = view(dst);
    const ValueId A = root_of(dst);
    auto pf = register_frag(src);
    if (!d.frag || !pf || forwarded_.at(A) != src) cannot(&op, "a forwarded A operand that is not a thread's fragment");
    untransposed(*pf, &op, "an A operand forwarded from registers");
    const int64_t kt = tile_static(*pf, &op)[1], words = forwarded_words(A, &op);
    const std::string P = var(src), a = var(A);
    // The leaf that wrote P may have kept its values in pairs already, with a function left to apply
    // to each (elementwise.cpp: a 16-bit relu).
    auto kept = packed_pairs_.find(P);
    const std::string pair = kept != packed_pairs_.end() ? kept->second.apply + kept->second.words + "[i])"
                                                         : "loom::rt::pack_pair(" + P + "[2 * i], " + P + "[2 * i + 1])";
    auto pack = [&](const std::string& ind, bool masked) {
      s.line(ind + "#pragma unroll");
      s.line(ind + "for (int i = 0; i < " + std::to_string(words) + "; ++i) " + a + "[i] = " + pair +
             (masked ? " & loom::rt::pair_mask(loom::rt::acc_col(tid, 2 * i), ncols)" : "") + ";");
    };
    // The wgmmas of the previous iteration may still read these registers (a wgmma takes its A
    // fragments from registers asynchronously, until its group completes). A rotated loop
    // (pingpong) declares them before the loop and waits for its deferred mma itself; otherwise
    // drain the tensor cores before the registers are rewritten.
    bool rotated_handles = false;
    if (rotation_)
      for (const Op* h : rotation_->hoisted) rotated_handles = rotated_handles || h->result == A;
    if (!rotated_handles)
      s.line("loom::rt::wgmma_wait<0>();  // earlier wgmmas read " + names_[static_cast<size_t>(A)] + "'s registers until they complete");
    const std::string what = names_[static_cast<size_t>(src)] + " -> " + names_[static_cast<size_t>(A)] +
                             ": packed into the wgmma's A fragments, in registers";
    emit_by_columns(s, d.frag->tile, kt, what, what + "; columns past the tile's " + view(d.frag->tile).ext[1] + " are zeros",
                    pack);
    if (kept != packed_pairs_.end()) packed_pairs_.erase(kept);  // written again by the leaf wherever it is emitted again
    return;
  }
  auto sr = row_array(src), dr = row_array(dst);
  if ((sr || dr) && (!sr || !dr)) {
    auto sm = sr ? std::nullopt : row_memory(src), dm = dr ? std::nullopt : row_memory(dst);
    if ((sr || sm) && (dr || dm) && !(op.name.empty() ? false : (op.name != "sum" && op.name != "max")) &&
        (op.name.empty() || (sr && dm))) {
      const std::string what = (op.name.empty() ? "copy " : "copy." + op.name + " ") + names_[static_cast<size_t>(src)] +
                               " -> " + names_[static_cast<size_t>(dst)];
      if (row_entries(sr ? src : dst) != (sm ? sm : dm)->entries)
        cannot(&op, "a copy between a row vector in registers and one in memory cut for other warpgroup rows");
      emit_row_memory_copy(s, op, what, sr, sm, dr, dm, op.name);
      return;
    }
  }
  if (!sr || !dr)
    cannot(&op, std::string("a ") + (op.name.empty() ? "" : op.name + " ") + "copy from " + mem_name(mem_of(src)) + " to " +
                    mem_name(mem_of(dst)));
  const int64_t entries = row_entries(dst);
  if (row_entries(src) != entries) cannot(&op, "a copy between row vectors of different warpgroup rows");
  const std::string ne = std::to_string(entries);
  if (op.name.empty()) {
    s.line("#pragma unroll");
    s.line("for (int r = 0; r < " + ne + "; ++r) " + *dr + "[r] = " + *sr + "[r];");
    return;
  }
  if (op.name != "max" && op.name != "sum") cannot(&op, "a copy." + op.name + " into a row vector");
  if (row_regs_.count(root_of(src)))
    cannot(&op, "a reducing copy from a replicated row vector (each lane would fold the same value)");
  std::string masks;
  for (int m : row_sharing_lane_masks()) masks += (masks.empty() ? "" : ", ") + std::to_string(m);
  s.line("#pragma unroll");
  s.line("for (int r = 0; r < " + ne + "; ++r) {  // copy." + op.name + ": the partials of the lanes holding the same rows (lane ^ " +
         masks + "), then into every replica");
  s.line("  float x = " + *sr + "[r];");
  for (int m : row_sharing_lane_masks())
    s.line("  x = " + fold_expr(op.name, "x", "__shfl_xor_sync(0xffffffffu, x, " + std::to_string(m) + ")") + ";");
  s.line("  " + *dr + "[r] = " + fold_expr(op.name, *dr + "[r]", "x") + ";");
  s.line("}");
}

// A lane's piece of a rank-1 tensor in shared or global memory cut like an accumulator's rows
// (view rows: a warpgroup's 64 rows, a lane's 2 of them): entry acc_row(t, 2 h) of the warpgroup's
// rows is the lane's row half h.
std::optional<CudaGen::RowMemory> CudaGen::row_memory(ValueId v) {
  if (f_.info(v).type != ir::Type::Tensor || f_.info(v).rank != 1) return std::nullopt;
  const MemKind m = mem_of(v);
  if (m != MemKind::Shared && m != MemKind::Global) return std::nullopt;
  const View& w = view(v);
  if (!w.rows || !w.frag) return std::nullopt;
  const View& tile = view(w.frag->tile);
  if (tile.dims.size() != 1 || tile.off.size() != 1) return std::nullopt;
  RowMemory r;
  r.global = m == MemKind::Global;
  r.type = cpp_type(w.dtype);
  r.ext = tile.ext[0];
  r.entries = std::stoll(w.ext.at(0));
  if (w.param) {
    const std::string P = pname(w.root);
    r.stride = P + ".stride[0]";
    r.base = "reinterpret_cast<" + r.type + "*>(" + P + ".data) + (" + tile.off[0] + ") * " + r.stride;
  } else {
    r.stride = "1";
    r.base = var(w.root) + " + (" + tile.off[0] + ")";
  }
  return r;
}

// A copy between a lane's row vector in registers and its piece of a row vector in shared or
// global memory (or the leaf `copy` / `convert` of one into the other). The lanes that share rows
// (a quad) hold replicas: one of them (lane bits 1, 2 clear) writes; a reducing copy first combines
// their partials with __shfl_xor_sync, and that lane folds the result into the memory. Rows past
// the warpgroup's run-time rows (a clipped last tile) are neither read (0) nor written.
void CudaGen::emit_row_memory_copy(Stream& s, const Op& op, const std::string& what, const std::optional<std::string>& src_regs,
                                   const std::optional<RowMemory>& src_mem, const std::optional<std::string>& dst_regs,
                                   const std::optional<RowMemory>& dst_mem, const std::string& reduce) {
  int sharing = 0;
  std::string masks;
  for (int m : row_sharing_lane_masks()) {
    sharing |= m;
    masks += (masks.empty() ? "" : ", ") + std::to_string(m);
  }
  const RowMemory& mem = src_mem ? *src_mem : *dst_mem;
  const int64_t entries = mem.entries;  // the callers check the register side has as many
  s.line("{  // " + what + ": this lane's " + std::to_string(entries) + " rows " + (src_mem ? "from" : "into") + " memory");
  s.indent += 2;
  s.line("const int tid = loom::rt::thread_in_warpgroup();");
  s.line(mem.type + "* const rp = " + mem.base + ";");
  s.line("const int64_t rn = " + mem.ext + ";  // rows of this warpgroup");
  s.line("#pragma unroll");
  s.line("for (int r = 0; r < " + std::to_string(entries) + "; ++r) {");
  s.indent += 2;
  s.line(entries > 2 ? "const int row = loom::rt::acc_row(tid, 2 * (r & 1)) + 64 * (r >> 1);  // row half r & 1 of row block r >> 1"
                     : "const int row = loom::rt::acc_row(tid, 2 * r);");
  if (src_mem) {
    s.line(*dst_regs + "[r] = row < rn ? static_cast<float>(rp[row * " + mem.stride + "]) : 0.0f;");
  } else {
    s.line("float x = " + *src_regs + "[r];");
    if (!reduce.empty()) {
      s.line("// the partials of the lanes holding the same rows (lane ^ " + masks + ")");
      for (int m : row_sharing_lane_masks())
        s.line("x = " + fold_expr(reduce, "x", "__shfl_xor_sync(0xffffffffu, x, " + std::to_string(m) + ")") + ";");
    }
    const std::string cell = "rp[row * " + mem.stride + "]";
    const std::string lane = "if ((loom::rt::lane_id() & " + std::to_string(sharing) + ") == 0 && row < rn) ";
    if (!reduce.empty() && mem.global) {
      // Global memory: other blocks reduce into the same entries (a prange's red(sum) argument), so
      // the add is atomic (red.global.add.f32); the order of the blocks' adds is unspecified.
      if (reduce != "sum" || mem.type != "float")
        cannot(&op, "a copy." + reduce + " of " + mem.type + " into global memory (only f32 sums have an atomic add)");
      s.line(lane + "atomicAdd(&" + cell + ", x);  // one lane of those holding the row; other blocks add into it too");
    } else {
      const std::string val = reduce.empty() ? "x" : fold_expr(reduce, "static_cast<float>(" + cell + ")", "x");
      s.line(lane + cell + " = static_cast<" + mem.type + ">(" + val + ");  // one lane of those holding the row");
    }
  }
  s.indent -= 2;
  s.line("}");
  s.indent -= 2;
  s.line("}");
}

// The 32-bit words of a thread's part of forwarded A tile `tile` (an alloc in forwarded_): its
// register array's 16-bit values in pairs, 4 per k16 step (F1).
int64_t CudaGen::forwarded_words(ValueId tile, const Op* at) {
  auto pf = register_frag(forwarded_.at(tile));
  if (!pf) cannot(at, "a forwarded A operand that is not a thread's fragment");
  one_row_block(*pf, at, "an A operand forwarded from registers");
  return tile_static(*pf, at)[1] / 4;
}

}  // namespace loom::codegen::detail
