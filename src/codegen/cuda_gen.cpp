// The CUDA back end's driver (CudaGen, cuda_gen.h): the small shared helpers, the index of the IR,
// the grid (the nested block loops), views (offsets and clipped extents of pieces), and the code
// streams: the kernel block walked once, each op appended to its role's stream, immediate (index,
// view, alloc) ops to every stream that can compute them.
#include "codegen/cuda_gen.h"

#include <cctype>
#include <sstream>

namespace loom::codegen::detail {

[[noreturn]] void cannot(const Op* op, const std::string& what, const std::string& hint) {
  Diagnostic d;
  if (op) d.loc = op->loc;
  d.message = "the CUDA back end cannot lower " + what + " yet";
  if (op && !op->origin.empty()) d.message += " (from `" + op->origin + "`)";
  d.hint = hint;
  throw CompileError(d);
}

std::string cpp_type(DType t) {
  switch (t) {
    case DType::BF16: return "__nv_bfloat16";
    case DType::F16: return "__half";
    case DType::F32: return "float";
    case DType::I32: return "int32_t";
  }
  return "float";
}

std::string abi_dtype(DType t) {
  switch (t) {
    case DType::BF16: return "LOOM_BF16";
    case DType::F16: return "LOOM_F16";
    case DType::F32: return "LOOM_F32";
    case DType::I32: return "LOOM_I32";
  }
  return "LOOM_DTYPE_INVALID";
}

std::string tma_dtype(DType t) {
  switch (t) {
    case DType::BF16: return "loom::host::TmaDtype::BF16";
    case DType::F16: return "loom::host::TmaDtype::F16";
    case DType::F32: return "loom::host::TmaDtype::F32";
    default: return "";
  }
}

std::string swizzle_enum(int bytes) {
  return bytes == 128 ? "loom::Swizzle::B128" : bytes == 64 ? "loom::Swizzle::B64" : bytes == 32 ? "loom::Swizzle::B32"
                                                                                               : "loom::Swizzle::None";
}

CudaArtifact CudaGen::run() {
  index(f_.body, nullptr);
  find_kernel();
  plan_split();
  find_register_residents();
  plan_zero_fills(*kernel_);
  prologue();
  plan_ring_chains(*kernel_);
  plan_multicast();
  plan_alternate();
  plan_signals(*kernel_);
  plan_releases();
  emit_kernel_block();
  end_split_owner(compute_);
  end_kteam_owner(compute_);
  tile_end_sync(compute_);
  CudaArtifact a;
  a.entry = entry_.task;
  a.cu = assemble();
  check_split_budget();
  check_kteam_budget();
  check_wgmma_registers();
  a.header = header();
  a.signature = codegen::abi_signature(f_);
  return a;
}

void CudaGen::index(const ir::Block& b, const Op* parent) {
  for (ValueId a : b.args) arg_loop_[a] = parent;
  for (const Op& op : b.ops) {
    if (op.result != kNone) def_[op.result] = &op;
    parent_[&op] = parent;
    for (const ir::Block& r : op.regions) index(r, &op);
  }
}

std::string CudaGen::var(ValueId v) const {
  std::string n = names_.at(static_cast<size_t>(v));
  std::string s = "v_";
  for (char c : n)
    if (c != '%') s += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return s;
}

// The grid: the nested pfor HOST / BLOCK loops from the function body down to the kernel block.
void CudaGen::find_kernel() {
  const ir::Block* b = &f_.body;
  for (;;) {
    const Op* inner = nullptr;
    for (const Op& op : b->ops) {
      // A HOST pfor's iterations are independent launches of the same block loops: one more
      // grid dimension.
      if (op.kind == OpKind::PFor && (op.proc == ProcKind::Block || op.proc == ProcKind::Host)) {
        if (inner) cannot(&op, "two sibling parallel loops over blocks (two kernels)");
        if (op.proc == ProcKind::Host && !grid_.empty() && grid_.back()->proc == ProcKind::Block)
          cannot(&op, "a HOST loop inside a BLOCK loop");
        inner = &op;
      } else if (ir::is_async(op.kind) && op.kind != OpKind::Join) {
        if (grid_.empty() && host_zero_fill(op)) {
          if (inner) cannot(&op, "a fill of an entry tensor after the block loops");
          host_zero_fills_.push_back(&op);
          continue;
        }
        if (grid_.empty()) cannot(&op, "an operation on the host outside the block loops");
      }
    }
    if (!inner) break;
    grid_.push_back(inner);
    b = &inner->regions[0];
  }
  if (grid_.empty() || grid_.back()->proc != ProcKind::Block)
    cannot(grid_.empty() ? nullptr : grid_.back(), "a function without a `pfor BLOCK` loop (no kernel)");
  kernel_ = &grid_.back()->regions[0];
  // Outer loops' bodies hold only index and view ops (and the inner pfor); an inner trip count
  // must not depend on an outer loop's index (the grid is a box).
  for (size_t i = 1; i < grid_.size(); ++i)
    for (size_t o = 0; o < i; ++o)
      if (depends_on(grid_[i]->operands[0], grid_[o]->regions[0].args[0]))
        cannot(grid_[i], "a block loop whose trip count depends on an enclosing block loop's index");
  ws_ = f_.warp_roles.has_value();
  if (ws_) {
    compute_wgs_ = f_.warp_roles->compute_warpgroups;
    dma_wgs_ = f_.warp_roles->dma_warpgroups;
  } else {
    auto it = f_.proc_extents.find(ProcKind::Warpgroup);
    compute_wgs_ = it == f_.proc_extents.end() ? 1 : it->second;
    dma_wgs_ = 0;
  }
}

// A fill with 0 of a whole rank-1 entry tensor in global memory, before the kernel: the launcher
// clears it with cudaMemsetAsync (a `w` tensor the program reduces into with red(sum)).
bool CudaGen::host_zero_fill(const Op& op) const {
  if (op.kind != OpKind::Call || op.name != "fill" || op.operands.size() != 2) return false;
  if (std::find(f_.params.begin(), f_.params.end(), op.operands[0]) == f_.params.end()) return false;
  const ir::ValueInfo& vi = f_.info(op.operands[0]);
  if (vi.type != ir::Type::Tensor || vi.rank != 1 || vi.mem != MemKind::Global) return false;
  auto d = def_.find(op.operands[1]);
  return d != def_.end() && d->second->kind == OpKind::FConst && d->second->fval == 0.0;
}

// Whether index value v depends on loop variable `lv` (a slice's extents do not depend on which
// slice; a blocks piece's do, through clipping).
bool CudaGen::depends_on(ValueId v, ValueId lv) const {
  if (v == lv) return true;
  auto it = def_.find(v);
  if (it == def_.end()) return false;
  const Op* op = it->second;
  switch (op->kind) {
    case OpKind::Dim: return tensor_extent_depends(op->operands[0], static_cast<int>(op->ival), lv);
    case OpKind::Arith: return depends_on(op->operands[0], lv) || depends_on(op->operands[1], lv);
    default: return false;
  }
}

bool CudaGen::tensor_extent_depends(ValueId t, int d, ValueId lv) const {
  auto it = def_.find(t);
  if (it == def_.end()) return false;  // a parameter
  const Op* op = it->second;
  if (op->kind == OpKind::Alloc) return depends_on(op->operands.at(static_cast<size_t>(d)), lv);
  if (op->kind != OpKind::Piece) return true;
  if (op->part.kind == PartitionSpec::Kind::Slices) {
    int sd = d >= op->part.dim ? d + 1 : d;
    return tensor_extent_depends(op->operands[0], sd, lv);
  }
  // A blocks piece's extent along d is its source's, clipped at the piece's offset along d: it
  // depends on the index along d only. (Mma pieces: on any index.)
  if (op->part.kind == PartitionSpec::Kind::Blocks && op->operands.size() == op->part.block.size() + 1) {
    if (depends_on(op->operands.at(static_cast<size_t>(d) + 1), lv)) return true;
  } else {
    for (size_t i = 1; i < op->operands.size(); ++i)
      if (depends_on(op->operands[i], lv)) return true;
  }
  return tensor_extent_depends(op->operands[0], d, lv);
}

const View& CudaGen::view(ValueId t) {
  auto it = views_.find(t);
  if (it != views_.end()) return it->second;
  View v;
  auto d = def_.find(t);
  const ir::ValueInfo& vi = f_.info(t);
  v.dtype = vi.dtype;
  v.mem = vi.mem;
  if (d == def_.end()) {  // a parameter
    v.root = t;
    v.param = true;
    for (int i = 0; i < vi.rank; ++i) {
      v.dims.push_back(i);
      v.off.push_back("0");
      v.ext.push_back(pname(t) + ".shape[" + std::to_string(i) + "]");
    }
  } else if (d->second->kind == OpKind::Alloc) {
    v.root = t;
    for (int i = 0; i < vi.rank; ++i) {
      v.dims.push_back(i);
      v.off.push_back("0");
      v.ext.push_back(var(d->second->operands[static_cast<size_t>(i)]));
    }
  } else {
    LOOM_ASSERT(d->second->kind == OpKind::Piece, "view of a non-tensor " << names_[static_cast<size_t>(t)]);
    v = piece_view(*d->second);
  }
  return views_[t] = v;
}

View CudaGen::piece_view(const Op& op) {
  const View src = view(op.operands[0]);
  View v = src;
  const std::string me = var(op.result);
  switch (op.part.kind) {
    case PartitionSpec::Kind::Blocks: {
      if (src.frag) cannot(&op, "a blocks piece of an mma fragment");
      for (size_t d = 0; d < src.dims.size(); ++d) {
        ValueId b = op.part.block[d], idx = op.operands[d + 1];
        if (b == kNone) continue;  // `*`: the whole dimension (index 0)
        int rd = src.dims[d];
        std::string start = "(" + var(idx) + " * " + var(b) + ")";
        v.off[static_cast<size_t>(rd)] = me + "_o" + std::to_string(d);
        v.ext[d] = me + "_e" + std::to_string(d);
        pending_decls_.push_back("const int64_t " + v.off[static_cast<size_t>(rd)] + " = " +
                                 src.off[static_cast<size_t>(rd)] + " + " + start + ";");
        pending_decls_.push_back("const int64_t " + v.ext[d] + " = loom_clip(" + src.ext[d] + ", " + start + ", " +
                                 var(b) + ");");
      }
      break;
    }
    case PartitionSpec::Kind::Slices: {
      if (src.frag) cannot(&op, "a slice of an mma fragment");
      size_t d = static_cast<size_t>(op.part.dim);
      int rd = src.dims[d];
      v.off[static_cast<size_t>(rd)] = "(" + src.off[static_cast<size_t>(rd)] + " + " + var(op.operands[1]) + ")";
      v.dims.erase(v.dims.begin() + static_cast<long>(d));
      v.ext.erase(v.ext.begin() + static_cast<long>(d));
      break;
    }
    case PartitionSpec::Kind::Mma: {
      if (op.part.instr != "wgmma") cannot(&op, "an mma partition for " + op.part.instr);
      Frag fr;
      fr.role = op.part.role;
      fr.m = op.part.m;
      fr.n = op.part.n;
      fr.k = op.part.k;
      fr.transposed = op.part.transposed;
      auto pi = def_.find(op.operands[1]);
      bool by_proc = pi != def_.end() && pi->second->kind == OpKind::ProcIndex;
      bool warp_rows = false;  // a lane's piece of a warp's row vector kept in registers (rows.cpp)
      if (op.part.holder == ProcKind::Warpgroup) {
        if (src.frag) cannot(&op, "an mma piece of an mma piece held by a warpgroup");
        if (!by_proc || pi->second->proc != ProcKind::Warp)
          cannot(&op, "a warpgroup's mma piece not indexed by the warp");
        fr.tile = op.operands[0];
        fr.level = 1;
      } else {
        // A lane's piece of a warpgroup's piece; or of a warp's row vector kept in registers
        // (rows.cpp: one per warp, each lane holding its rows).
        warp_rows = !src.frag && src.dims.size() == 1 && row_regs_.count(src.root);
        if ((!warp_rows && (!src.frag || src.frag->level != 1)) || !by_proc || pi->second->proc != ProcKind::Thread)
          cannot(&op, "a warp's mma piece that is not a lane's piece of a warpgroup's piece");
        fr.tile = warp_rows ? src.root : src.frag->tile;
        fr.level = 2;
        if (src.frag && src.frag->transposed != fr.transposed)
          cannot(&op, "a lane's mma piece whose warp piece is " + std::string(fr.transposed ? "untransposed" : "transposed"),
                 "give both levels' mma partitions the same orientation");
      }
      v.frag = fr;
      const View& tile = view(fr.tile);
      if (tile.dims.size() == 1 && fr.role == MmaRole::Rhs) {
        // A column vector's piece (operands.cpp): a warp's whole vector, or a lane's columns.
        auto eb = bounds_.extent_bounds(op.result);
        if (eb.size() != 1 || !eb[0]) cannot(&op, "a column vector's mma piece without a static size");
        v.cols = fr.level == 2;
        v.ext = {std::to_string(*eb[0])};
        break;
      }
      if (tile.dims.size() == 1) {
        // A row vector's piece (rows.cpp): of a warpgroup's 64 R rows (R row blocks, as its
        // accumulator fragments), a warp's 16 R rows, or a lane's 2 R.
        if (fr.role != MmaRole::Acc || fr.m != 64)
          cannot(&op, "an mma partition of a rank-1 tensor other than an accumulator's rows (acc, m = 64) or columns (rhs)");
        const int64_t rows = tile_static(fr, &op)[0];
        if (warp_rows ? rows != 16 : (rows % 64 != 0 || rows > 256))
          cannot(&op, "a row vector of " + std::to_string(rows) + (warp_rows ? " rows per warp kept in registers (16 are supported)"
                                                                              : " rows per warpgroup (64, 128, 192 or 256 are supported)"));
        const int64_t blocks = warp_rows ? 1 : rows / 64;
        v.rows = fr.level == 2;
        v.ext = {std::to_string((fr.level == 2 ? 2 : 16) * blocks)};
        break;
      }
      if (tile.dims.size() != 2) cannot(&op, "an mma partition of a tile of rank " + std::to_string(tile.dims.size()));
      // Fragment extents (dim of a fragment) are the fragment's static shape.
      auto eb = bounds_.extent_bounds(op.result);
      v.ext.clear();
      for (auto& e : eb) {
        if (!e) cannot(&op, "an mma fragment without a static size");
        v.ext.push_back(std::to_string(*e));
      }
      break;
    }
  }
  return v;
}

// The static extents of a tensor (from the bounds), or a CompileError naming why there are none.
std::vector<int64_t> CudaGen::static_extents(ValueId t, const Op* at) {
  std::vector<int64_t> out;
  for (auto& e : bounds_.extent_bounds(t)) {
    if (!e) cannot(at, "a tensor without a static size (" + bounds_.why_unbounded(t) + ")");
    out.push_back(*e);
  }
  return out;
}

// The index and view ops of the function body and the outer block loops' bodies: computed by
// every thread before the roles split.
void CudaGen::prologue() {
  std::set<ValueId> have(f_.params.begin(), f_.params.end());
  for (const Op* g : grid_) have.insert(g->regions[0].args[0]);
  immediates_of(f_.body, prologue_, have);
  for (size_t i = 0; i + 1 < grid_.size(); ++i) immediates_of(grid_[i]->regions[0], prologue_, have);
  dma_.defined = have;
  compute_.defined = have;
  prologue_have_ = have;
}

void CudaGen::emit_kernel_block() {
  dma_.name = "dma";
  compute_.name = "compute";
  compute_.indent = 2;  // relative to the tile loop's body
  dma_.indent = 2;
  emit_block(*kernel_, nullptr);
}

Stream& CudaGen::stream_of(const Op& op) {
  if (ws_ && op.role == ir::Role::Dma) return dma_;
  if (!ws_ && op.role == ir::Role::Dma) cannot(&op, "a DMA-role op without warp roles");
  return compute_;
}

void CudaGen::emit_block(const ir::Block& b, const Op* loop) {
  for (const Op& op : b.ops) {
    emit_op(op, loop);
    // The last compute op of the tile that reads a once-per-tile TMA buffer: release it for the
    // next tile's load (events.cpp, plan_releases).
    if (auto it = release_after_.find(&op); it != release_after_.end()) {
      wgmma_drain(compute_, op);
      arrive(compute_, Signal{it->second, nullptr, 1}, "0");
    }
  }
}

// An immediate op, into every stream that has its operands.
void CudaGen::emit_immediate(const Op& op) {
  for (Stream* s : streams()) {
    bool ok = true;
    for (ValueId o : op.operands)
      if (!s->defined.count(o)) ok = false;
    if (op.kind == OpKind::ProcIndex && s == &dma_) ok = false;
    // The compute threads' registers (row vectors, forwarded A fragments): not the DMA role's.
    if (op.kind == OpKind::Alloc && s == &dma_ && (row_regs_.count(op.result) || forwarded_.count(op.result))) ok = false;
    if (!ok) continue;
    if (s == &compute_ && hoisted_.count(op.result)) {  // declared before its loop (pingpong.cpp)
      s->defined.insert(op.result);
      continue;
    }
    std::vector<std::string> lines = immediate_lines(op);
    if (!op.origin.empty() && (op.kind == OpKind::Alloc)) s->line("// " + op.origin);
    for (auto& l : lines) s->line(l);
    s->defined.insert(op.result);
  }
}

std::vector<std::string> CudaGen::immediate_lines(const Op& op) {
  const std::string r = op.result == kNone ? "" : var(op.result);
  auto a = [&](size_t i) { return var(op.operands[i]); };
  switch (op.kind) {
    case OpKind::Const: return {"const int64_t " + r + " = " + std::to_string(op.ival) + ";"};
    case OpKind::FConst: {
      std::ostringstream os;
      os.precision(9);
      os << op.fval;
      std::string s = os.str();
      if (s == "inf") s = "INFINITY";
      else if (s == "-inf") s = "-INFINITY";
      else if (s.find_first_of(".e") == std::string::npos) s += ".0";
      return {"const float " + r + " = " + s + (s.find("INF") == std::string::npos ? "f" : "") + ";"};
    }
    case OpKind::Arith: {
      // `%slot = mod %k, D` of a loop pipelined D deep is the ring slot: it follows the loop's
      // running position (iter), like the barriers, so slots rotate on from tile to tile.
      if (op.name == "mod") {
        auto al = arg_loop_.find(op.operands[0]);
        auto dc = def_.find(op.operands[1]);
        if (al != arg_loop_.end() && al->second && al->second->kind == OpKind::For &&
            al->second->regions[0].args[0] == op.operands[0] && al->second->pipeline_depth > 1 && dc != def_.end() &&
            dc->second->kind == OpKind::Const && dc->second->ival == al->second->pipeline_depth)
          return {"const int64_t " + r + " = " + iter(al->second) + " % " + a(1) + ";  // ring slot"};
      }
      static const std::map<std::string, std::string> fn = {{"add", "+"}, {"sub", "-"}, {"mul", "*"}, {"div", "/"},
                                                            {"mod", "%"}};
      auto it = fn.find(op.name);
      std::string e = it != fn.end() ? a(0) + " " + it->second + " " + a(1) : "loom_" + op.name + "(" + a(0) + ", " + a(1) + ")";
      return {"const int64_t " + r + " = " + e + ";"};
    }
    case OpKind::Dim: {
      const View& v = view(op.operands[0]);
      return {"const int64_t " + r + " = " + v.ext.at(static_cast<size_t>(op.ival)) + ";"};
    }
    case OpKind::ProcIndex: {
      switch (op.proc) {
        case ProcKind::Warpgroup:
          if (teams_ > 1) return {"const int64_t " + r + " = consumer_wg % " + std::to_string(team_wgs()) + ";  // proc_index WARPGROUP (in the team)"};
          return {"const int64_t " + r + " = consumer_wg;  // proc_index WARPGROUP"};
        case ProcKind::Warp: return {"const int64_t " + r + " = loom::rt::warp_in_warpgroup();  // proc_index WARP"};
        case ProcKind::Thread: return {"const int64_t " + r + " = loom::rt::lane_id();  // proc_index THREAD"};
        default: cannot(&op, std::string("proc_index ") + proc_name(op.proc));
      }
    }
    case OpKind::Alloc: return alloc_lines(op);
    case OpKind::Piece: {
      pending_decls_.clear();
      views_.erase(op.result);
      view(op.result);
      std::vector<std::string> out = pending_decls_;
      pending_decls_.clear();
      // A clipped view of a register tile (blocks at index 0: a narrower last tile's scores) names
      // the same registers; its extents above say how many columns hold values.
      if (ValueId r = register_origin(op.result); r != kNone && r != op.result)
        out.push_back("auto& " + var(op.result) + " = " + var(r) + ";  // the first " + view(op.result).ext.back() +
                      " columns of " + names_[static_cast<size_t>(r)]);
      return out;
    }
    default: break;
  }
  LOOM_ASSERT(false, "not an immediate op");
  return {};
}

std::vector<std::string> CudaGen::alloc_lines(const Op& op) {
  const std::string r = var(op.result);
  view(op.result);
  switch (op.mem) {
    case MemKind::None: return {};  // a NONE tensor the middle end left only for its extents
    case MemKind::Shared: {
      auto s = f_.smem_slots.find(op.result);
      if (s == f_.smem_slots.end()) cannot(&op, "a shared tensor without a shared-memory slot (resource allocation did not run)");
      if (row_regs_.count(op.result))
        return {"float " + r + "[2];  // row vector in registers: this lane's replica of its 2 rows (@smem slot unused)"};
      if (forwarded_.count(op.result))
        return {"uint32_t " + r + "[" + std::to_string(forwarded_words(op.result, &op)) + "];  // " +
                names_[static_cast<size_t>(op.result)] + " in registers: this thread's A fragments, packed pairs of " +
                names_[static_cast<size_t>(forwarded_.at(op.result))] + " (@smem slot unused)"};
      if (s->second.copies != 1) cannot(&op, "a shared tensor with one copy per processor");
      return {cpp_type(op.dtype) + "* const " + r + " = reinterpret_cast<" + cpp_type(op.dtype) + "*>(smem + " +
              std::to_string(s->second.offset) + ");  // @smem[" + std::to_string(s->second.offset) + ", " +
              std::to_string(s->second.offset + s->second.bytes) + ")" +
              (op.layout.given ? " " + ir::layout_text(op.layout) : "")};
    }
    case MemKind::Register: {
      int64_t n = register_count(op);
      return {cpp_type(op.dtype) + " " + r + "[" + std::to_string(n) + "];"};
    }
    case MemKind::Global: cannot(&op, "a global-memory temporary");
  }
  return {};
}

void CudaGen::emit_op(const Op& op, const Op* loop) {
  if (!ir::is_async(op.kind)) {
    emit_immediate(op);
    return;
  }
  switch (op.kind) {
    case OpKind::Join: {
      // No work: waiters look through it. A join the DMA role waits for is signaled after its
      // preconditions' producers.
      Stream& s = stream_of(op);
      s.defined.insert(op.result);
      if (auto it = signal_of_op_.find(&op); it != signal_of_op_.end()) {
        for (const EventRef& r : op.after) wait(s, op, r, loop);
        arrive(s, signals_[static_cast<size_t>(it->second)], "0");
      }
      return;
    }
    case OpKind::For:
      emit_for(op);
      // A later DMA op waits for the whole loop (a loop that reuses its ring buffers): the
      // compute warps arrive once the loop's wgmmas are done.
      if (auto it = signal_of_op_.find(&op); it != signal_of_op_.end()) {
        wgmma_drain(compute_, op);
        arrive(compute_, signals_[static_cast<size_t>(it->second)], "0");
      }
      return;
    case OpKind::PFor: cannot(&op, std::string("a `pfor ") + proc_name(op.proc) + "` inside the kernel");
    case OpKind::Copy:
    case OpKind::Call: {
      Stream& s = stream_of(op);
      const bool rotated = rotation_ && loop == rotation_->loop && &s == &compute_;
      if (rotated && &op == rotation_->deferred) {  // issued in the next iteration's first turn
        s.defined.insert(op.result);
        return;
      }
      // A write to a hoisted register array waits for the deferred mma of the previous
      // iteration (it reads it).
      if (rotated)
        for (const Op* h : rotation_->hoisted)
          if (writes_root(op, h->result)) wgmma_wait_for(s, *rotation_->deferred);
      for (const EventRef& r : op.after) wait(s, op, r, loop);
      if (!op.origin.empty()) s.line("// " + op.origin + "  [" + source_ + ":" + std::to_string(op.loc.line) + "]");
      const bool turn = turn_loop_ && loop == turn_loop_ && &s == &compute_ && is_wgmma(op);
      if (turn) turn_begin(s);
      if (op.kind == OpKind::Copy && is_smem_fragment_load(op)) emit_smem_fragment_load(s, op);
      else if (op.kind == OpKind::Copy && !is_tma_copy(op)) emit_register_copy(s, op);
      else if (op.kind == OpKind::Copy) emit_copy(s, op, loop);
      else emit_call(s, op);
      if (rotated) rotated_release_early(s, *rotation_, op);
      if (rotated && &op == rotation_->first) {
        const std::string k = var(loop->regions[0].args[0]);
        emit_deferred(s, *rotation_, k + " - 1", k + " > 0");
        arm_release(*rotation_, s.groups.back(), /*late=*/true);
      }
      if (turn) turn_end(s);
      s.defined.insert(op.result);
      if (auto it = signal_of_op_.find(&op); it != signal_of_op_.end()) {
        if (is_wgmma(op)) wgmma_drain(s, op);
        arrive(s, signals_[static_cast<size_t>(it->second)], "0");
      }
      return;
    }
    default: break;
  }
}

// The loop `for %k in [0, n)`: in every stream that has ops in it.
void CudaGen::emit_for(const Op& op) {
  const ir::Block& body = op.regions[0];
  const ValueId k = body.args[0];
  std::vector<Stream*> ss;
  for (Stream* s : streams())
    if (!ws_ || has_role(op, s == &dma_ ? ir::Role::Dma : ir::Role::Compute)) ss.push_back(s);
  const std::string n = var(op.operands[0]);
  // pingpong (pingpong.cpp): the compute warpgroups take turns issuing this loop's wgmmas, and the
  // body's last mma may be deferred into the next iteration's first turn.
  std::optional<Rotation> rot;
  const Op* outer_turn = turn_loop_;
  const Rotation* outer_rotation = rotation_;
  if (op.pingpong && ws_ && compute_wgs_ >= 2) {
    pingpong_ = true;
    turn_loop_ = &op;
    rot = plan_rotation(op);
    rotation_ = rot ? &*rot : nullptr;
    if (rot) deferred_mmas_.push_back(names_[static_cast<size_t>(rot->deferred->result)].substr(1));
  }
  std::vector<int> outer_scopes;  // per stream of ss
  size_t for_line = 0;            // the compute stream's `for` line (double_buffer_loop)
  std::vector<std::set<std::string>> outer_waited;  // per stream of ss: the waits that hold in the body
  for (Stream* s : ss) {
    // The loop's preconditions, once before it.
    for (const EventRef& r : op.after) wait(*s, op, r, nullptr);
    if (s == &compute_ && op.pingpong) {
      if (!ws_ || compute_wgs_ < 2)
        s->line("// pingpong: one compute warpgroup, no turns to take");
      else if (!rot)
        s->line("// pingpong: each wgmma issue below is a turn (the loop is not rotated: see pingpong.cpp)");
      for (const Op* h : rot ? rot->hoisted : std::vector<const Op*>{}) {
        s->line("// " + names_[static_cast<size_t>(h->result)] +
                ": declared before the loop, the deferred mma reads it in the next iteration");
        for (const std::string& l : alloc_lines(*h)) s->line(l);
        if (rot->double_buffer) {  // pingpong(double_buffer): the odd iterations' copy
          const std::string v = var(h->result);
          for (const std::string& l : alloc_lines(*h)) {
            const size_t at = l.find(v + "[");
            if (at != std::string::npos) s->line(l.substr(0, at) + v + "_odd" + l.substr(at + v.size()) + "  (the odd iterations' copy)");
          }
        }
        hoisted_.insert(h->result);
        s->defined.insert(h->result);
      }
      if (op.pingpong_double_buffer && !(rot && rot->double_buffer))
        s->line("// pingpong(double_buffer): nothing to double-buffer (" +
                std::string(rot ? "the deferred mma reads no register array of the body" : "the loop is not rotated") + ")");
    }
    s->line("// " + (op.origin.empty() ? std::string("loop") : op.origin) + "  [" + source_ + ":" + std::to_string(op.loc.line) + "]" +
            (op.pipeline_depth > 1 ? "  pipelined " + std::to_string(op.pipeline_depth) + " deep" : ""));
    if (&op == split_loop_ && stream_) {
      s->line("// streamk: this turn's iterations [unit_lo, unit_hi) of the " + n + " (streamk.cpp)");
      s->line("const int64_t " + loop_start(&op) + " = unit_lo;");
      s->line("const int64_t " + var(k) + "_hi = loom_min(unit_hi, " + n + ");");
      s->line("for (int64_t " + var(k) + " = " + loop_start(&op) + "; " + var(k) + " < " + var(k) + "_hi; ++" + var(k) + ") {");
    } else if (&op == split_loop_) {
      s->line("// splitk(" + std::to_string(split_) + "): this block's share of the " + n +
              " iterations, by its rank in the tile's cluster (none when " + n + " < " + std::to_string(split_) + ")");
      s->line("const int64_t " + loop_start(&op) + " = " + n + " * splitk_rank / " + std::to_string(split_) + ";");
      s->line("const int64_t " + var(k) + "_hi = " + n + " * (splitk_rank + 1) / " + std::to_string(split_) + ";");
      s->line("for (int64_t " + var(k) + " = " + loop_start(&op) + "; " + var(k) + " < " + var(k) + "_hi; ++" + var(k) + ") {");
    } else if (&op == kteam_loop_ && s == &compute_) {
      kteam_loop_head(*s, op, n);  // kteams.cpp: this team's iterations
    } else {
      alternate_turn_begin(*s, op);
      if (s == &compute_) for_line = s->lines.size();
      s->line("for (int64_t " + var(k) + " = 0; " + var(k) + " < " + n + "; ++" + var(k) + ") {");
    }
    s->indent += 2;
    s->defined.insert(k);
    for (size_t j = 1; j < body.args.size(); ++j) s->defined.insert(body.args[j]);
    // A wait for a TMA copy issued outside the loop (Q, loaded once per tile) holds in every
    // iteration: it is not repeated in the body. Every other wait starts over.
    s->waited = invariant_waits(*s, op);
    outer_waited.push_back(s->waited);
    outer_scopes.push_back(s->scope);
    s->scope = s->next_scope++;  // a new straight-line scope: wgmma wait counts start over
  }
  // The body, op by op, each into its stream(s).
  loops_.push_back(&op);
  const bool in_compute = std::find(ss.begin(), ss.end(), &compute_) != ss.end();
  const size_t body_begin = compute_.lines.size(), branches_before = extent_branches_.size();
  for (const Op& o : body.ops) emit_op(o, &op);
  if (in_compute) version_whole_tiles(compute_, op, body_begin, branches_before);
  // Accumulators declared in the body go out of scope with it: later drains do not fence them.
  for (auto it = accumulators_.begin(); it != accumulators_.end();) {
    auto d = def_.find(*it);
    bool inside = false;
    for (const Op* p = d == def_.end() ? nullptr : parent_.at(d->second); p; p = parent_.at(p))
      if (p == &op) inside = true;
    it = inside ? accumulators_.erase(it) : std::next(it);
  }
  auto sig = signal_of_loop_.find(ring_head(&op));
  for (size_t si = 0; si < ss.size(); ++si) {
    Stream* s = ss[si];
    if (s == &compute_ && sig != signal_of_loop_.end()) yield_signal(*s, op, signals_[static_cast<size_t>(sig->second)], true);
    if (s == &compute_ && rot)  // the deferred mma's release must not wait for the next iteration
      for (const Stream::Group& g : s->groups)
        if (g.release_signal >= 0) {
          wgmma_drain(*s, op);
          break;
        }
    s->indent -= 2;
    const size_t close_line = s->lines.size();
    s->line("}");
    s->waited = outer_waited[si];  // (the body may have run no iteration)
    s->scope = outer_scopes[si];
    if (s == &compute_ && rot) {  // the last iteration's deferred mma
      s->line("if (" + n + " > 0) {");
      s->indent += 2;
      turn_begin(*s);
      emit_deferred(*s, *rot, n + " - 1", "");
      s->groups.back().conditional = true;  // none if n == 0
      turn_end(*s);
      s->indent -= 2;
      s->line("}");
      if (rot->double_buffer) double_buffer_loop(*s, *rot, for_line, close_line);
    }
    alternate_turn_end(*s, op);  // (the last iteration's wgmmas are issued: the next team may issue its own)
    if (s == &compute_ && sig != signal_of_loop_.end()) yield_signal(*s, op, signals_[static_cast<size_t>(sig->second)], false);
    s->line(base(&op) + " += " + loop_trips(&op) + ";  // the next tile's iterations continue the rings");
    if (s == &compute_) compute_loops_.push_back(&op);
    s->defined.insert(op.result);
  }
  if (&op == split_loop_) stream_ ? emit_stream_reduce(compute_, op) : emit_split_reduce(compute_, op);
  if (&op == kteam_loop_) emit_kteam_reduce(compute_, op);
  turn_loop_ = outer_turn;
  rotation_ = outer_rotation;
}

// A zero fill of a register accumulator whose next access in its block is a wgmma into that whole
// accumulator (attention's S = 0; S += Q K^T) is not emitted: the wgmma's first k step runs with
// scale-d = 0 (D = A B instead of D = A B + D), which writes every register of the accumulator.
// Only ops of the same block count (a fill before a loop whose body accumulates stays a fill).
void CudaGen::plan_zero_fills(const ir::Block& b) {
  std::function<bool(const Op&, ValueId)> accesses = [&](const Op& o, ValueId v) {
    if (o.kind == OpKind::Dim || o.kind == OpKind::Piece) return false;
    if (touches(o, v)) return true;
    for (const ir::Block& r : o.regions)
      for (const Op& q : r.ops)
        if (accesses(q, v)) return true;
    return false;
  };
  for (size_t i = 0; i < b.ops.size(); ++i) {
    const Op& f = b.ops[i];
    for (const ir::Block& r : f.regions) plan_zero_fills(r);
    if (f.kind != OpKind::Call || f.name != "fill" || f.operands.size() != 2) continue;
    const ValueId c = f.operands[0];
    auto a = def_.find(c), z = def_.find(f.operands[1]);
    if (a == def_.end() || a->second->kind != OpKind::Alloc || a->second->mem != MemKind::Register) continue;
    if (z == def_.end() || z->second->kind != OpKind::FConst || z->second->fval != 0.0) continue;
    for (size_t j = i + 1; j < b.ops.size(); ++j) {
      if (!accesses(b.ops[j], c)) continue;
      const Op& m = b.ops[j];
      if (m.kind == OpKind::Call && m.name == "mma" && m.operands.size() == 3 && m.operands[0] == c &&
          !piece_of(m.operands[1], c) && !piece_of(m.operands[2], c)) {
        zero_fills_.insert(&f);
        overwriting_mmas_.insert(&m);
      }
      break;
    }
  }
}

void CudaGen::emit_call(Stream& s, const Op& op) {
  if (&s == &dma_) cannot(&op, "a leaf call in the DMA role");
  if (op.name == "mma") return emit_wgmma(s, op);
  if (op.name == "fill" && zero_fills_.count(&op)) {
    s.line("// (folded into the next wgmma: its first k step overwrites " + var(op.operands[0]) + ", scale-d = 0)");
    return;
  }
  if (op.name == "fill") return emit_fill(s, op);
  if (op.name == "rowmax" || op.name == "rowsum") return emit_row_reduce(s, op);
  if (op.name == "mask_above") return emit_mask(s, op);
  return emit_elementwise(s, op);
}

// The index and view ops of block b (not its regions) whose operands are in `have`, as C++
// lines appended to `out`; their results join `have`.
void CudaGen::immediates_of(const ir::Block& b, std::vector<std::string>& out, std::set<ValueId>& have) {
  for (const Op& op : b.ops) {
    if (ir::is_async(op.kind)) continue;
    bool ok = true;
    for (ValueId o : op.operands)
      if (!have.count(o)) ok = false;
    if (!ok) continue;
    for (auto& l : immediate_lines(op)) out.push_back(l);
    have.insert(op.result);
  }
}

}  // namespace loom::codegen::detail
