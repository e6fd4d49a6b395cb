// The Hopper back end: CUDA C++ from the final event IR. Overview in cuda.h; this file is one
// class, CudaGen, in the order it runs:
//   1. index   — definitions, the grid loops (nested `pfor BLOCK`), the kernel block;
//   2. signals — which events cross from the compute role into the DMA role (their producers must
//                arrive on an mbarrier);
//   3. streams — walk the kernel block once, appending each op to the code stream of its role
//                (immediate ops to every stream that can compute them);
//   4. assemble — kernel skeleton (setup / producer / consumer), host launcher, metadata, header.
//
// EVENTS. For an op X waiting on reference r (after list), with Y the op that produces r's event
// (joins and loop events are looked through; a carried event of distance d in iteration k is the
// loop's yield in iteration k - d, or the loop's preconditions for k < d):
//   Y a TMA copy                 -> mbarrier wait on Y's barrier: slot k mod R, parity (k / R) & 1
//                                  (R = the enclosing loop's pipeline depth, 1 outside loops);
//   Y a wgmma call, X in the same warpgroup:
//       X a wgmma on the same accumulator -> nothing (a warpgroup's wgmmas on one accumulator run
//                                  in issue order, HOPPER-FACTS F1);
//       X not touching Y's accumulator, every shared operand of X from a TMA copy X waits for
//       directly                -> nothing (no data flows from Y to X; e.g. dual_gemm's second mma);
//       otherwise               -> wgmma_wait<0> once (until the next wgmma);
//   Y a per-thread op in X's thread -> nothing (program order);
//   Y's instances on other processors of the compute role (a broadcast E[:, ...]) -> nothing when
//       Y writes only those processors' private registers and every shared-memory operand of X is
//       produced by a TMA copy X waits for directly (then no data reaches X through them, and
//       whatever Y waited for that X touches, X waits for itself); otherwise a named barrier over
//       the compute warpgroups (unsupported here yet: a CompileError says so);
//   X in the DMA role, Y in the compute role (a `cross` reference) -> an mbarrier the compute warps
//       arrive on (lane 0 of each warp, count = compute warps) when their part of Y is done; for a
//       loop's yield made of wgmmas the arrival is deferred until the next iteration's wgmmas are
//       committed (wgmma_wait<G>, G = wgmma groups per iteration), or to the loop's end, so the
//       tensor cores never drain.
// Every other combination is a CompileError ("the CUDA back end cannot lower ... yet").
#include "codegen/cuda.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lang/ops.h"
#include "passes/bounds.h"

namespace loom::codegen {
namespace {

using ir::EventRef;
using ir::Function;
using ir::Op;
using ir::OpKind;
using ir::PartitionSpec;
using ir::ValueId;
using ir::kNone;

[[noreturn]] void cannot(const Op* op, const std::string& what, const std::string& hint = "") {
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

// A tensor value as the generated code sees it: a root (a function parameter or an alloc), where
// the view starts in each root dimension, which root dimension each view dimension is, and the
// view's (clipped, run-time) extents. Strings are C++ expressions over generated locals.
struct Frag {
  MmaRole role = MmaRole::Acc;
  int64_t m = 0, n = 0, k = 0;
  ValueId tile = kNone;  // the warpgroup's tile (the view the WARPGROUP-level mma piece cuts)
  int level = 0;         // 1: a warp's piece of the tile, 2: a thread's
};
struct View {
  ValueId root = kNone;
  bool param = false;
  MemKind mem = MemKind::None;
  DType dtype = DType::F32;
  std::vector<int> dims;          // view dimension -> root dimension
  std::vector<std::string> off;   // per root dimension
  std::vector<std::string> ext;   // per view dimension
  std::optional<Frag> frag;
};

// One code stream: the lines one role executes, with the values it has defined.
struct Stream {
  std::string name;
  std::vector<std::string> lines;
  std::set<ValueId> defined;
  int indent = 2;
  bool wgmma_pending = false;     // wgmmas committed and not yet waited for
  std::set<std::string> waited;   // waits already emitted in the current iteration scope
  void line(const std::string& s) { lines.push_back(std::string(static_cast<size_t>(indent), ' ') + s); }
};

struct Barrier {
  std::string name;     // bar_<event>
  int64_t ring = 1;     // slots
  std::string count;    // arrival count per phase (C++ expression)
  std::string comment;
  int64_t offset = 0;   // bytes in dynamic shared memory
};

// A compute-role event the DMA role waits for.
struct Signal {
  int barrier = -1;     // index into barriers_
  const Op* loop = nullptr;  // set when the event is a loop's yield (carried event)
  int64_t ring = 1;
};

struct TensorMap {
  std::string name;     // tm_<param>_<n>
  ValueId param = kNone;
  std::vector<int64_t> box;  // per root dimension (root order, outermost first)
  int swizzle = 0;
  DType dtype = DType::BF16;
};

class CudaGen {
 public:
  CudaGen(const Function& f, const TaskDecl& task, const std::string& source, bool staging_allowed)
      : f_(f), task_(task), source_(source), bounds_(f), names_(ir::value_names(f)), staging_allowed_(staging_allowed) {}

  // Whether the epilogue staging tiles pushed the kernel past the block's shared-memory budget
  // (after run(); the caller then generates again without staging).
  const std::string& head() const { return head_; }
  const std::string& body() const { return body_; }
  const std::string& kernel_line() const { return kernel_line_; }
  int64_t smem_bytes() const { return smem_bytes_; }
  int64_t threads() const { return threads_; }
  std::string abi(int64_t smem_bytes, int64_t threads) { return abi_functions(smem_bytes, threads); }
  // The C parameter list of launch_<entry> (each mapping's launcher and the dispatching one), and
  // the dispatcher's arguments to a mapping's launcher.
  std::string launch_params() const {
    std::string out;
    for (ValueId p : f_.params)
      out += (f_.info(p).type == ir::Type::Tensor ? "const loom_tensor& " + pname(p) : scalar_type(p) + " " + var(p)) + ", ";
    return out + "cudaStream_t stream";
  }
  std::string launch_args() const {
    std::string out;
    for (ValueId p : f_.params) out += (f_.info(p).type == ir::Type::Tensor ? pname(p) : var(p)) + ", ";
    return out + "stream";
  }

  bool staging_over_budget() const {
    const int64_t budget = f_.smem.bytes > 0 ? f_.smem.bytes : f_.smem.machine_max;
    return stage_bytes_ > 0 && budget > 0 && smem_bytes_ > budget;
  }

  CudaArtifact run() {
    index(f_.body, nullptr);
    find_kernel();
    prologue();
    plan_signals(*kernel_);
    emit_kernel_block();
    CudaArtifact a;
    a.entry = task_.name.name;
    a.cu = assemble();
    a.header = header();
    return a;
  }

 private:
  // ---- 1. index -----------------------------------------------------------------------------------
  void index(const ir::Block& b, const Op* parent) {
    for (ValueId a : b.args) arg_loop_[a] = parent;
    for (const Op& op : b.ops) {
      if (op.result != kNone) def_[op.result] = &op;
      parent_[&op] = parent;
      for (const ir::Block& r : op.regions) index(r, &op);
    }
  }

  std::string var(ValueId v) const {
    std::string n = names_.at(static_cast<size_t>(v));
    std::string s = "v_";
    for (char c : n)
      if (c != '%') s += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
    return s;
  }
  std::string pname(ValueId v) const { return f_.info(v).name; }

  // The grid: the nested pfor HOST / BLOCK loops from the function body down to the kernel block.
  void find_kernel() {
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

  // Whether index value v depends on loop variable `lv` (a slice's extents do not depend on which
  // slice; a blocks piece's do, through clipping).
  bool depends_on(ValueId v, ValueId lv) const {
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
  bool tensor_extent_depends(ValueId t, int d, ValueId lv) const {
    auto it = def_.find(t);
    if (it == def_.end()) return false;  // a parameter
    const Op* op = it->second;
    if (op->kind == OpKind::Alloc) return depends_on(op->operands.at(static_cast<size_t>(d)), lv);
    if (op->kind != OpKind::Piece) return true;
    if (op->part.kind == PartitionSpec::Kind::Slices) {
      int sd = d >= op->part.dim ? d + 1 : d;
      return tensor_extent_depends(op->operands[0], sd, lv);
    }
    for (size_t i = 1; i < op->operands.size(); ++i)
      if (depends_on(op->operands[i], lv)) return true;
    return tensor_extent_depends(op->operands[0], d, lv);
  }

  // ---- views ------------------------------------------------------------------------------------------
  const View& view(ValueId t) {
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

  View piece_view(const Op& op) {
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
        auto pi = def_.find(op.operands[1]);
        bool by_proc = pi != def_.end() && pi->second->kind == OpKind::ProcIndex;
        if (op.part.holder == ProcKind::Warpgroup) {
          if (src.frag) cannot(&op, "an mma piece of an mma piece held by a warpgroup");
          if (!by_proc || pi->second->proc != ProcKind::Warp)
            cannot(&op, "a warpgroup's mma piece not indexed by the warp");
          fr.tile = op.operands[0];
          fr.level = 1;
        } else {
          if (!src.frag || src.frag->level != 1 || !by_proc || pi->second->proc != ProcKind::Thread)
            cannot(&op, "a warp's mma piece that is not a lane's piece of a warpgroup's piece");
          fr.tile = src.frag->tile;
          fr.level = 2;
        }
        v.frag = fr;
        const View& tile = view(fr.tile);
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
  std::vector<int64_t> static_extents(ValueId t, const Op* at) {
    std::vector<int64_t> out;
    for (auto& e : bounds_.extent_bounds(t)) {
      if (!e) cannot(at, "a tensor without a static size (" + bounds_.why_unbounded(t) + ")");
      out.push_back(*e);
    }
    return out;
  }

  // ---- 2. signals: compute-role events the DMA role waits for ---------------------------------------
  void plan_signals(const ir::Block& b) {
    for (const Op& op : b.ops) {
      bool dma_side = op.role == ir::Role::Dma || (op.kind == OpKind::For && ws_ && has_role(op, ir::Role::Dma));
      if (dma_side)
        for (const EventRef& r : op.after)
          if (r.cross || op.kind == OpKind::For) plan_signal(op, r);
      for (const ir::Block& r : op.regions) plan_signals(r);
    }
  }
  bool has_role(const Op& op, ir::Role role) const {
    if (op.role == role) return true;
    for (const ir::Block& r : op.regions)
      for (const Op& o : r.ops)
        if (has_role(o, role)) return true;
    return false;
  }
  void plan_signal(const Op& waiter, const EventRef& r) {
    auto [producer, loop, distance] = producer_of(r.value);
    if (loop) {  // a carried event: the loop's yield
      if (signal_of_loop_.count(loop)) {
        Signal& s = signals_[static_cast<size_t>(signal_of_loop_[loop])];
        if (distance > s.ring) cannot(&waiter, "carried events of different distances into the DMA role");
        return;
      }
      Barrier bar{"bar_" + var(r.value), distance, std::to_string(compute_wgs_ * 4),
                  "compute warps done with iteration k of the loop at line " + std::to_string(loop->loc.line) +
                      " (" + names_[static_cast<size_t>(r.value)] + ", distance " + std::to_string(distance) + ")"};
      barriers_.push_back(bar);
      Signal s{static_cast<int>(barriers_.size() - 1), loop, distance};
      signal_of_loop_[loop] = static_cast<int>(signals_.size());
      signals_.push_back(s);
      return;
    }
    if (!producer) return;
    if (producer->role == ir::Role::Dma) return;  // DMA program order / TMA barrier
    if (registers_only(*producer)) return;        // nothing the DMA role touches (see registers_only)
    if (signal_of_op_.count(producer)) return;
    if (enclosing_loop(producer) != nullptr) cannot(&waiter, "a DMA wait on a compute event inside a loop (not a yield)");
    Barrier bar{"bar_" + var(r.value), 1, std::to_string(compute_wgs_ * 4),
                "compute warps done with " + (producer->origin.empty() ? names_[static_cast<size_t>(r.value)] : producer->origin)};
    barriers_.push_back(bar);
    signal_of_op_[producer] = static_cast<int>(signals_.size());
    signals_.push_back(Signal{static_cast<int>(barriers_.size() - 1), nullptr, 1});
  }

  // Whether Y is a leaf call that writes only registers (private to each processor) and, unless
  // shared_reads_ok, reads no shared memory.
  bool leaf_touches_only(const Op& y, bool shared_reads_ok) const {
    if (y.kind != OpKind::Call) return false;
    const LeafOp* lo = find_leaf_op(y.name);
    if (!lo) return false;
    for (size_t i = 0; i < y.operands.size(); ++i) {
      const ir::ValueInfo& vi = f_.info(y.operands[i]);
      if (vi.type != ir::Type::Tensor) continue;
      bool writes = i >= lo->args.size() || lo->args[i].access != Access::Read;
      if (writes && vi.mem != MemKind::Register) return false;
      if (!writes && !shared_reads_ok && vi.mem == MemKind::Shared) return false;
    }
    return true;
  }

  // Whether compute op Y, and everything it waits for outside the DMA role, writes only the compute
  // threads' registers (e.g. the fill of an accumulator). The DMA role reads global memory and
  // writes shared memory, so it neither sees nor disturbs such an op: a DMA-role wait for it (a
  // loop's preconditions passed on to its copies) is dropped instead of lowered to a barrier —
  // that is what lets the producer start the next tile's loads while the consumers still run the
  // epilogue.
  bool registers_only(const Op& y) {
    if (y.role == ir::Role::Dma) return true;
    if (y.kind == OpKind::Join) {
      for (const EventRef& r : y.after) {
        auto [p, loop, d] = producer_of(r.value);
        if (loop || !p || !registers_only(*p)) return false;
      }
      return true;
    }
    if (!leaf_touches_only(y, /*shared_reads_ok=*/false)) return false;  // the DMA writes shared memory
    for (const EventRef& r : y.after) {
      auto [p, loop, d] = producer_of(r.value);
      if (loop || !p || !registers_only(*p)) return false;
    }
    return true;
  }

  // The op producing event value v; or, for a carried block argument, the loop and the distance.
  std::tuple<const Op*, const Op*, int64_t> producer_of(ValueId v) const {
    auto d = def_.find(v);
    if (d != def_.end()) return {d->second, nullptr, 0};
    auto a = arg_loop_.find(v);
    if (a != arg_loop_.end() && a->second && a->second->kind == OpKind::For) {
      const Op* loop = a->second;
      const auto& args = loop->regions[0].args;
      for (size_t j = 1; j < args.size(); ++j)
        if (args[j] == v) return {nullptr, loop, ir::carried_distance(*loop, j - 1)};
    }
    return {nullptr, nullptr, 0};
  }

  // The pipeline position of loop L's current iteration: the loop's iterations over every tile
  // this block has run so far (the kernel is persistent: a block runs tile after tile, and a ring
  // buffer's slots and its barriers' phases carry on from one tile to the next).
  std::string iter(const Op* L) const { return "(" + base(L) + " + " + var(L->regions[0].args[0]) + ")"; }
  std::string base(const Op* L) const { return var(L->result) + "_base"; }

  const Op* enclosing_loop(const Op* op) const {
    for (const Op* p = parent_.at(op); p; p = parent_.at(p))
      if (p->kind == OpKind::For) return p;
    return nullptr;
  }

  // ---- 3. streams ---------------------------------------------------------------------------------------
  bool is_tma_copy(const Op& op) {
    return op.kind == OpKind::Copy && op.name.empty() && f_.info(op.operands[0]).mem == MemKind::Global &&
           f_.info(op.operands[1]).mem == MemKind::Shared;
  }
  bool is_wgmma(const Op& op) {
    if (op.kind != OpKind::Call || op.name != "mma" || op.operands.size() != 3) return false;
    const View& a = view(op.operands[1]);
    return a.frag.has_value();
  }

  // The index and view ops of the function body and the outer block loops' bodies: computed by
  // every thread before the roles split.
  void prologue() {
    std::set<ValueId> have(f_.params.begin(), f_.params.end());
    for (const Op* g : grid_) have.insert(g->regions[0].args[0]);
    immediates_of(f_.body, prologue_, have);
    for (size_t i = 0; i + 1 < grid_.size(); ++i) immediates_of(grid_[i]->regions[0], prologue_, have);
    dma_.defined = have;
    compute_.defined = have;
  }

  void emit_kernel_block() {
    dma_.name = "dma";
    compute_.name = "compute";
    compute_.indent = 2;  // relative to the tile loop's body
    dma_.indent = 2;
    emit_block(*kernel_, nullptr);
  }

  std::vector<Stream*> streams() { return ws_ ? std::vector<Stream*>{&dma_, &compute_} : std::vector<Stream*>{&compute_}; }
  Stream& stream_of(const Op& op) {
    if (ws_ && op.role == ir::Role::Dma) return dma_;
    if (!ws_ && op.role == ir::Role::Dma) cannot(&op, "a DMA-role op without warp roles");
    return compute_;
  }

  void emit_block(const ir::Block& b, const Op* loop) {
    for (const Op& op : b.ops) emit_op(op, loop);
  }

  // An immediate op, into every stream that has its operands.
  void emit_immediate(const Op& op) {
    for (Stream* s : streams()) {
      bool ok = true;
      for (ValueId o : op.operands)
        if (!s->defined.count(o)) ok = false;
      if (op.kind == OpKind::ProcIndex && s == &dma_) ok = false;
      if (!ok) continue;
      std::vector<std::string> lines = immediate_lines(op);
      if (!op.origin.empty() && (op.kind == OpKind::Alloc)) s->line("// " + op.origin);
      for (auto& l : lines) s->line(l);
      s->defined.insert(op.result);
    }
  }

  std::vector<std::string> immediate_lines(const Op& op) {
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
          case ProcKind::Warpgroup: return {"const int64_t " + r + " = consumer_wg;  // proc_index WARPGROUP"};
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
        return out;
      }
      default: break;
    }
    LOOM_ASSERT(false, "not an immediate op");
    return {};
  }

  std::vector<std::string> alloc_lines(const Op& op) {
    const std::string r = var(op.result);
    view(op.result);
    switch (op.mem) {
      case MemKind::None: return {};  // a NONE tensor the middle end left only for its extents
      case MemKind::Shared: {
        auto s = f_.smem_slots.find(op.result);
        if (s == f_.smem_slots.end()) cannot(&op, "a shared tensor without a shared-memory slot (resource allocation did not run)");
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

  // The fragment a REGISTER alloc holds: its extents are the dims of a thread's mma fragment.
  std::optional<Frag> register_frag(ValueId reg) {
    auto d = def_.find(reg);
    if (d == def_.end() || d->second->kind != OpKind::Alloc || d->second->mem != MemKind::Register) return std::nullopt;
    std::optional<Frag> fr;
    ValueId src = kNone;
    for (size_t i = 0; i < d->second->operands.size(); ++i) {
      auto e = def_.find(d->second->operands[i]);
      if (e == def_.end() || e->second->kind != OpKind::Dim || e->second->ival != static_cast<int64_t>(i)) return std::nullopt;
      if (src != kNone && src != e->second->operands[0]) return std::nullopt;
      src = e->second->operands[0];
    }
    if (src == kNone) return std::nullopt;
    const View& v = view(src);
    if (!v.frag || v.frag->level != 2) return std::nullopt;
    return v.frag;
  }

  int64_t register_count(const Op& op) {
    if (auto fr = register_frag(op.result)) {
      check_acc_tile(*fr, &op);
      return tile_static(*fr, &op)[1] / 2;
    }
    auto ext = static_extents(op.result, &op);
    int64_t n = 1;
    for (int64_t e : ext) n *= e;
    return n;
  }

  std::vector<int64_t> tile_static(const Frag& fr, const Op* at) { return static_extents(fr.tile, at); }
  void check_acc_tile(const Frag& fr, const Op* at) {
    auto t = tile_static(fr, at);
    if (fr.role == MmaRole::Acc && (t[0] != 64 || t[1] % fr.n != 0))
      cannot(at, "an accumulator tile of " + std::to_string(t[0]) + " x " + std::to_string(t[1]) +
                     " per warpgroup (64 rows, a multiple of n columns are supported)");
  }

  void emit_op(const Op& op, const Op* loop) {
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
      case OpKind::For: emit_for(op); return;
      case OpKind::PFor: cannot(&op, std::string("a `pfor ") + proc_name(op.proc) + "` inside the kernel");
      case OpKind::Copy:
      case OpKind::Call: {
        Stream& s = stream_of(op);
        for (const EventRef& r : op.after) wait(s, op, r, loop);
        if (!op.origin.empty()) s.line("// " + op.origin + "  [" + source_ + ":" + std::to_string(op.loc.line) + "]");
        if (op.kind == OpKind::Copy) emit_copy(s, op, loop);
        else emit_call(s, op);
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

  void arrive(Stream& s, const Signal& sig, const std::string& slot) {
    const Barrier& b = barriers_[static_cast<size_t>(sig.barrier)];
    s.line("__syncwarp();");
    s.line("if (loom::rt::lane_id() == 0) loom::rt::mbarrier::arrive(&" + b.name + "[" + slot + "]);  // " + b.comment);
  }

  void wgmma_drain(Stream& s, const Op& /*why*/) {
    if (!s.wgmma_pending) return;
    s.line("loom::rt::wgmma_wait<0>();");
    for (ValueId acc : accumulators_) s.line("loom::rt::wgmma_fence_operand(" + var(acc) + ");");
    s.wgmma_pending = false;
  }

  // The loop `for %k in [0, n)`: in every stream that has ops in it.
  void emit_for(const Op& op) {
    const ir::Block& body = op.regions[0];
    const ValueId k = body.args[0];
    std::vector<Stream*> ss;
    for (Stream* s : streams())
      if (!ws_ || has_role(op, s == &dma_ ? ir::Role::Dma : ir::Role::Compute)) ss.push_back(s);
    const std::string n = var(op.operands[0]);
    for (Stream* s : ss) {
      // The loop's preconditions, once before it.
      for (const EventRef& r : op.after) wait(*s, op, r, nullptr);
      s->line("// " + (op.origin.empty() ? std::string("loop") : op.origin) + "  [" + source_ + ":" + std::to_string(op.loc.line) + "]" +
              (op.pipeline_depth > 1 ? "  pipelined " + std::to_string(op.pipeline_depth) + " deep" : ""));
      s->line("for (int64_t " + var(k) + " = 0; " + var(k) + " < " + n + "; ++" + var(k) + ") {");
      s->indent += 2;
      s->defined.insert(k);
      for (size_t j = 1; j < body.args.size(); ++j) s->defined.insert(body.args[j]);
      s->waited.clear();
    }
    // The body, op by op, each into its stream(s).
    loops_.push_back(&op);
    for (const Op& o : body.ops) emit_op(o, &op);
    auto sig = signal_of_loop_.find(&op);
    for (Stream* s : ss) {
      if (s == &compute_ && sig != signal_of_loop_.end()) yield_signal(*s, op, signals_[static_cast<size_t>(sig->second)], true);
      s->indent -= 2;
      s->line("}");
      s->waited.clear();
      if (s == &compute_ && sig != signal_of_loop_.end()) yield_signal(*s, op, signals_[static_cast<size_t>(sig->second)], false);
      s->line(base(&op) + " += " + n + ";  // the next tile's iterations continue the rings");
      s->defined.insert(op.result);
    }
  }

  // The compute role's arrival for a loop's yield the DMA role waits for. A yield made of wgmmas
  // is signaled one iteration late (wgmma_wait<1> after this iteration's commit), the last one after
  // the loop; any other yield at the end of its iteration.
  void yield_signal(Stream& s, const Op& loop, const Signal& sig, bool in_body) {
    const ir::Block& body = loop.regions[0];
    const std::string k = var(body.args[0]), g = iter(&loop);
    const Barrier& b = barriers_[static_cast<size_t>(sig.barrier)];
    const std::string R = std::to_string(b.ring);
    bool wg = yield_is_wgmma(loop);
    if (in_body) {
      if (wg) {
        s.line("// the tensor cores finished iteration " + k + " - 1: release it (" + b.comment + ")");
        s.line("loom::rt::wgmma_wait<" + std::to_string(wgmma_groups(loop)) + ">();  // this iteration's groups may still run");
        s.line("if (" + k + " > 0) {");
        s.line("  __syncwarp();");
        s.line("  if (loom::rt::lane_id() == 0) loom::rt::mbarrier::arrive(&" + b.name + "[(" + g + " - 1) % " + R + "]);");
        s.line("}");
        s.wgmma_pending = true;  // this iteration's group
      } else {
        arrive(s, sig, g + " % " + R);
      }
    } else if (wg) {
      const std::string n = var(loop.operands[0]);
      wgmma_drain(s, loop);
      s.line("if (" + n + " > 0) {");
      s.line("  __syncwarp();");
      s.line("  if (loom::rt::lane_id() == 0) loom::rt::mbarrier::arrive(&" + b.name + "[(" + base(&loop) + " + " + n + " - 1) % " + R + "]);");
      s.line("}");
    }
  }

  // How many wgmma commit groups one iteration of the loop issues (one per mma call); waiting
  // until at most that many are pending leaves only this iteration's in flight.
  int64_t wgmma_groups(const Op& loop) {
    int64_t n = 0;
    for (const Op& o : loop.regions[0].ops)
      if (is_wgmma(o)) ++n;
    if (n < 1 || n > 7) cannot(&loop, "a loop body with " + std::to_string(n) + " wgmma groups (1..7 are supported)");
    return n;
  }

  // Whether the loop's yield is (a join of) wgmma calls of its body only.
  bool yield_is_wgmma(const Op& loop) {
    std::vector<const Op*> leaves;
    collect_producers(loop.regions[0].yield.value, leaves);
    if (leaves.empty()) return false;
    for (const Op* p : leaves)
      if (!is_wgmma(*p)) return false;
    return true;
  }
  void collect_producers(ValueId v, std::vector<const Op*>& out) {
    auto d = def_.find(v);
    if (d == def_.end()) return;
    if (d->second->kind == OpKind::Join) {
      for (const EventRef& r : d->second->after) collect_producers(r.value, out);
      return;
    }
    out.push_back(d->second);
  }

  // ---- events -----------------------------------------------------------------------------------------
  // Emits what op X (in stream s, inside `loop` or at the kernel block's top level) must do before
  // it starts, for its precondition r. See EVENTS at the top of this file.
  void wait(Stream& s, const Op& x, const EventRef& r, const Op* loop) {
    auto [producer, carried_loop, distance] = producer_of(r.value);
    if (carried_loop) {
      // Iteration k waits for iteration k - d's yield (the loop's preconditions for k < d, waited
      // before the loop).
      const std::string k = iter(carried_loop);
      if (&s == &dma_) {
        auto it = signal_of_loop_.find(carried_loop);
        if (it == signal_of_loop_.end()) cannot(&x, "a DMA-role wait on a carried event without a signal");
        const Barrier& b = barriers_[static_cast<size_t>(signals_[static_cast<size_t>(it->second)].barrier)];
        const std::string D = std::to_string(distance), R = std::to_string(b.ring);
        const std::string key = b.name + "@" + D;
        if (s.waited.count(key)) return;
        s.waited.insert(key);
        s.line("if (" + k + " >= " + D + ") loom::rt::mbarrier::wait(&" + b.name + "[(" + k + " - " + D + ") % " + R +
               "], ((" + k + " - " + D + ") / " + R + ") & 1);  // " + names_[static_cast<size_t>(r.value)] + ": " + b.comment);
        return;
      }
      // Compute role: the yield's producers in iteration k - d.
      std::vector<const Op*> leaves;
      collect_producers(carried_loop->regions[0].yield.value, leaves);
      for (const Op* y : leaves) wait_compute(s, x, *y, /*same_iteration=*/false, r);
      return;
    }
    if (!producer) cannot(&x, "a wait on " + names_[static_cast<size_t>(r.value)]);
    if (producer->kind == OpKind::Join) {
      if (&s == &dma_ && producer->role != ir::Role::Dma) {
        if (registers_only(*producer)) return;
        dma_wait_signal(s, x, *producer, r);
        return;
      }
      for (const EventRef& q : producer->after) wait(s, x, q, loop);
      return;
    }
    if (producer->kind == OpKind::For) {
      // The whole loop: every iteration's yield. In the compute role all of them ran before this
      // op in program order; what may still be in flight is their wgmmas.
      if (&s == &dma_) cannot(&x, "a DMA-role wait on a whole loop");
      std::vector<const Op*> leaves;
      collect_producers(producer->regions[0].yield.value, leaves);
      for (const Op* y : leaves) wait_compute(s, x, *y, false, r);
      return;
    }
    if (&s == &dma_) {
      if (producer->role == ir::Role::Dma) return;  // the same thread, in program order (TMA issue order)
      if (registers_only(*producer)) return;        // see registers_only
      dma_wait_signal(s, x, *producer, r);
      return;
    }
    wait_compute(s, x, *producer, true, r);
  }

  void dma_wait_signal(Stream& s, const Op& x, const Op& producer, const EventRef& r) {
    auto it = signal_of_op_.find(&producer);
    if (it == signal_of_op_.end()) cannot(&x, "a DMA-role wait on a compute event that has no signal");
    const Barrier& b = barriers_[static_cast<size_t>(signals_[static_cast<size_t>(it->second)].barrier)];
    if (s.waited.count(b.name)) return;
    s.waited.insert(b.name);
    s.line("loom::rt::mbarrier::wait(&" + b.name + "[0], tile_iter & 1);  // " + names_[static_cast<size_t>(r.value)] + ": " +
           b.comment + " (once per tile)");
  }

  // Compute-role op X waits for Y (in the same iteration, or an earlier one).
  void wait_compute(Stream& s, const Op& x, const Op& y, bool same_iteration, const EventRef& r) {
    if (is_tma_copy(y)) {
      if (!same_iteration) cannot(&x, "a wait on a TMA copy of an earlier iteration");
      const std::string& bar = tma_bar_.at(&y);
      const Op* L = enclosing_loop(&y);
      std::string slot = "0", parity = "0";
      if (L) {
        const std::string k = iter(L), R = std::to_string(std::max<int64_t>(1, L->pipeline_depth));
        slot = k + " % " + R;
        parity = "(" + k + " / " + R + ") & 1";
      }
      if (s.waited.count(bar)) return;
      s.waited.insert(bar);
      s.line("loom::rt::mbarrier::wait(&" + bar + "[" + slot + "], " + parity + ");  // " +
             names_[static_cast<size_t>(r.value)] + ": TMA copy landed");
      return;
    }
    if (y.role == ir::Role::Dma) cannot(&x, "a compute wait on a DMA op that is not a TMA copy");
    if (y.kind == OpKind::Join) {
      for (const EventRef& q : y.after) {
        auto d = def_.find(q.value);
        if (d != def_.end()) wait_compute(s, x, *d->second, same_iteration, q);
        else wait(s, x, q, enclosing_loop(&x));
      }
      return;
    }
    // Y runs on the compute processors. Its instances on other processors: see EVENTS.
    if (!others_need_no_wait(x, y)) cannot(&x, "a wait for other processors' " + y.origin + " (needs a named barrier)");
    // Its instance on this processor.
    if (is_wgmma(y)) {
      if (is_wgmma(x) && x.operands[0] == y.operands[0]) return;  // in issue order on one accumulator
      // An mma into another accumulator: X neither reads nor writes Y's registers, and what Y read
      // X waits for itself.
      if (!touches(x, y.operands[0]) && shared_operands_covered(x)) return;
      wgmma_drain(s, x);
      return;
    }
    // a per-thread op of this thread: program order.
  }

  // Whether X may skip waiting for Y's instances on other processors: Y writes only registers
  // (private to each processor), and every SHARED operand of X comes from a TMA copy X waits for
  // directly.
  bool others_need_no_wait(const Op& x, const Op& y) {
    return leaf_touches_only(y, /*shared_reads_ok=*/true) && shared_operands_covered(x);
  }
  // Whether op x has tensor v (or a piece of it) among its operands.
  bool touches(const Op& x, ValueId v) const {
    for (ValueId o : x.operands)
      if (f_.info(o).type == ir::Type::Tensor && piece_of(o, v)) return true;
    return false;
  }
  // Whether every SHARED operand of x comes from a TMA copy x waits for directly.
  bool shared_operands_covered(const Op& x) {
    for (ValueId o : x.operands) {
      if (f_.info(o).type != ir::Type::Tensor || f_.info(o).mem != MemKind::Shared) continue;
      ValueId tile = view(o).frag ? view(o).frag->tile : o;
      bool covered = false;
      for (const EventRef& r : x.after) {
        auto d = def_.find(r.value);
        if (d != def_.end() && is_tma_copy(*d->second) && piece_of(tile, d->second->operands[1])) covered = true;
      }
      if (!covered) return false;
    }
    return true;
  }
  // Whether view `t` is `of` or a piece of it.
  bool piece_of(ValueId t, ValueId of) const {
    for (ValueId v = t;;) {
      if (v == of) return true;
      auto d = def_.find(v);
      if (d == def_.end() || d->second->kind != OpKind::Piece) return false;
      v = d->second->operands[0];
    }
  }

  // ---- copies -------------------------------------------------------------------------------------------
  void emit_copy(Stream& s, const Op& op, const Op* loop) {
    if (!is_tma_copy(op)) {
      cannot(&op, std::string("a ") + (op.name.empty() ? "" : op.name + " ") + "copy from " +
                      mem_name(f_.info(op.operands[0]).mem) + " to " + mem_name(f_.info(op.operands[1]).mem));
    }
    if (&s != &dma_) cannot(&op, "a global -> shared copy outside the DMA role (warp specialization is off)",
                            "map the K loop's instance with `warpspecialize`");
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
      if ((inner * eb) % span) cannot(&op, "a tile whose row is not a multiple of the swizzle width");
      box_inner = span / eb;
      slices = inner * eb / span;
    }
    if (!span && inner > 256) cannot(&op, "an unswizzled tile wider than 256 elements");
    if (outer > 256) cannot(&op, "a tile of more than 256 rows (a TMA box dimension)");
    std::vector<int64_t> box(static_cast<size_t>(rank), 1);
    box[static_cast<size_t>(outer_dim)] = outer;
    box[static_cast<size_t>(inner_dim)] = box_inner;
    const std::string tm = tensor_map(src.root, box, layout.swizzle, src.dtype);
    // The barrier: one per copy op, a ring of the loop's pipeline depth.
    const int64_t R = loop ? std::max<int64_t>(1, loop->pipeline_depth) : 1;
    std::string bar = "bar_" + var(op.result);
    barriers_.push_back(Barrier{bar, R, "1", "TMA " + names_[static_cast<size_t>(op.operands[0])] + " -> " +
                                                names_[static_cast<size_t>(op.operands[1])] + " landed"});
    tma_bar_[&op] = bar;
    const std::string slot = loop ? iter(loop) + " % " + std::to_string(R) : "0";
    const int64_t bytes = rows * cols * eb;
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
  void check_tile_layout(const ir::TileLayout& layout, int64_t row_bytes, const Op* at) {
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
  std::tuple<std::string, int64_t, int64_t, ir::TileLayout> smem_tile(const View& v, const Op* at) {
    if (v.mem != MemKind::Shared || v.param) cannot(at, "a shared tile that is not a shared alloc");
    const Op* alloc = def_.at(v.root);
    const int rank = f_.info(v.root).rank;
    if (rank < 2 || v.dims.size() != 2 || v.dims[0] != rank - 2 || v.dims[1] != rank - 1)
      cannot(at, "a shared view that is not a tile of its alloc's last two dimensions");
    auto ext = static_extents(v.root, at);
    int64_t rows = ext[static_cast<size_t>(rank - 2)], cols = ext[static_cast<size_t>(rank - 1)];
    std::string lin = "0";
    for (int d = 0; d < rank - 2; ++d) lin = "(" + lin + ") * " + std::to_string(ext[static_cast<size_t>(d)]) + " + " + v.off[static_cast<size_t>(d)];
    std::string ptr = var(v.root) + " + (" + lin + ") * " + std::to_string(rows * cols);
    return {ptr, rows, cols, alloc->layout};
  }

  // Whether the entry gives tensor parameter `root` a column-major layout (ir::Function::param_layouts).
  bool param_col_major(ValueId root) const {
    auto it = f_.param_layouts.find(root);
    return it != f_.param_layouts.end() && it->second.col_major;
  }
  // A tensor parameter's dimensions from the contiguous one outwards: its tensor map's order and
  // the order of the ABI's stride checks (row-major: last .. 0; column-major: the last two swapped).
  std::vector<int> physical_order(ValueId root) const {
    const int rank = f_.info(root).rank;
    std::vector<int> order;
    for (int d = rank - 1; d >= 0; --d) order.push_back(d);
    if (rank >= 2 && param_col_major(root)) std::swap(order[0], order[1]);
    return order;
  }

  std::string tensor_map(ValueId param, const std::vector<int64_t>& box, int swizzle, DType dt) {
    for (const TensorMap& t : maps_)
      if (t.param == param && t.box == box && t.swizzle == swizzle) return t.name;
    TensorMap t{"tm_" + pname(param) + "_" + std::to_string(maps_.size()), param, box, swizzle, dt};
    maps_.push_back(t);
    return t.name;
  }

  // ---- calls --------------------------------------------------------------------------------------------
  void emit_call(Stream& s, const Op& op) {
    if (&s == &dma_) cannot(&op, "a leaf call in the DMA role");
    if (op.name == "mma") return emit_wgmma(s, op);
    if (op.name == "fill") return emit_fill(s, op);
    return emit_elementwise(s, op);
  }

  void emit_fill(Stream& s, const Op& op) {
    ValueId x = op.operands[0];
    auto d = def_.find(x);
    if (d == def_.end() || d->second->kind != OpKind::Alloc || d->second->mem != MemKind::Register)
      cannot(&op, "fill of a tensor that is not a whole register array");
    int64_t n = register_count(*d->second);
    s.line("#pragma unroll");
    s.line("for (int r = 0; r < " + std::to_string(n) + "; ++r) " + var(x) + "[r] = " + var(op.operands[1]) + ";");
  }

  void emit_wgmma(Stream& s, const Op& op) {
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
    accumulators_.insert(c);
    const int64_t n = a.frag->n;
    // The warpgroup's tiles: A (64 x K) and B (K x N) in shared memory.
    const View& at = view(a.frag->tile);
    const View& bt = view(b.frag->tile);
    auto ast = static_extents(a.frag->tile, &op), bst = static_extents(b.frag->tile, &op);
    const int64_t kt = ast[1], nt = bst[1];
    if (ast[0] != 64 || bst[0] != kt || kt % 16 || nt % n || nt != tile_static(*cf, &op)[1])
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
    auto [adesc, a_major] = tile_desc(at, MmaRole::Lhs, &op);
    auto [bdesc, b_major] = tile_desc(bt, MmaRole::Rhs, &op);
    const std::string T = cpp_type(a.dtype);
    s.line("loom::rt::wgmma_fence();  // accumulator " + var(c) + " and the operands' smem are ready");
    s.line("#pragma unroll");
    s.line("for (int ks = 0; ks < " + std::to_string(kt / 16) + "; ++ks) {");
    s.line("  const uint64_t da = " + adesc + ";");
    for (int64_t nb = 0; nb < nt / n; ++nb) {
      std::string bd = bdesc;
      size_t at_pos = bd.find("NOFF");
      bd.replace(at_pos, 4, std::to_string(nb * n));
      std::string acc = nt == n ? var(c) : "*reinterpret_cast<float(*)[" + std::to_string(n / 2) + "]>(&" + var(c) + "[" +
                                               std::to_string(nb * n / 2) + "])";
      s.line("  loom::rt::wgmma_m64nNk16<" + std::to_string(n) + ", " + T + ", " + a_major + ", " + b_major + ">(" + acc +
             ", da, " + bd + ", 1);");
    }
    s.line("}");
    s.line("loom::rt::wgmma_commit();");
    s.wgmma_pending = true;
  }

  // Whether index value v is provably a multiple of m (constants, products with a multiple, sums
  // and differences of multiples).
  bool multiple_of(ValueId v, int64_t m) const {
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
  bool offset_multiple_of(ValueId t, int dim, int64_t m) const {
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
  std::pair<std::string, std::string> tile_desc(const View& v, MmaRole role, const Op* at) {
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

  // The C++ expression of one element of an element-wise leaf (docs/language.md semantics), given
  // the expression of each input element.
  std::string elementwise_value(const Op& op, const std::vector<std::string>& in) {
    const std::string& n = op.name;
    auto one = [&]() { return in.at(0); };
    if (n == "convert" || n == "copy") return one();
    if (n == "exp") return "expf(" + one() + ")";
    if (n == "exp2") return "exp2f(" + one() + ")";
    if (n == "relu") return "fmaxf(" + one() + ", 0.0f)";
    if (n == "sigmoid") return "(1.0f / (1.0f + expf(-(" + one() + "))))";
    if (n == "tanh") return "tanhf(" + one() + ")";
    if (n == "silu") return "((" + one() + ") / (1.0f + expf(-(" + one() + "))))";
    if (n == "scale") return "(" + in.at(0) + " * " + in.at(1) + ")";
    if (n == "add") return "(" + in.at(0) + " + " + in.at(1) + ")";
    if (n == "sub") return "(" + in.at(0) + " - " + in.at(1) + ")";
    if (n == "mul") return "(" + in.at(0) + " * " + in.at(1) + ")";
    if (n == "div") return "(" + in.at(0) + " / " + in.at(1) + ")";
    if (n == "max") return "fmaxf(" + in.at(0) + ", " + in.at(1) + ")";
    cannot(&op, "the leaf `" + n + "`");
  }

  // An element-wise leaf D = f(X, ...) on a thread's accumulator fragments: every tensor input is a
  // register array holding the same fragment as the others (one element per register, the wgmma
  // order); D is such a register array too, or the thread's fragment of a global tile (a store,
  // converted to D's element type and clipped at the tile's extents).
  void emit_elementwise(Stream& s, const Op& op) {
    const LeafOp* lo = find_leaf_op(op.name);
    if (!lo || (lo->family != OpFamily::Convert && lo->family != OpFamily::Unary && lo->family != OpFamily::Binary &&
                lo->family != OpFamily::Scale && lo->family != OpFamily::Copy))
      cannot(&op, "the leaf `" + op.name + "`");
    std::optional<Frag> frag;
    std::vector<ValueId> regs;  // tensor inputs (register arrays)
    for (size_t i = 1; i < op.operands.size(); ++i) {
      if (f_.info(op.operands[i]).type != ir::Type::Tensor) continue;
      auto xf = register_frag(op.operands[i]);
      if (!xf) cannot(&op, "`" + op.name + "` on something other than accumulator fragments in registers");
      if (frag && tile_static(*frag, &op) != tile_static(*xf, &op))
        cannot(&op, "`" + op.name + "` on fragments of different tiles");
      frag = xf;
      regs.push_back(op.operands[i]);
    }
    if (!frag) cannot(&op, "`" + op.name + "` without a tensor input");
    auto value = [&](const std::string& idx) {
      std::vector<std::string> in;
      for (size_t i = 1; i < op.operands.size(); ++i)
        in.push_back(f_.info(op.operands[i]).type == ir::Type::Tensor ? var(op.operands[i]) + "[" + idx + "]"
                                                                       : var(op.operands[i]));
      return elementwise_value(op, in);
    };
    const ValueId dv = op.operands[0];
    if (auto df = register_frag(dv)) {
      if (tile_static(*df, &op) != tile_static(*frag, &op)) cannot(&op, "`" + op.name + "` between fragments of different tiles");
      s.line("#pragma unroll");
      s.line("for (int r = 0; r < " + std::to_string(tile_static(*df, &op)[1] / 2) + "; ++r) " + var(dv) + "[r] = " +
             value("r") + ";");
      return;
    }
    emit_store(s, op, *frag, value);
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
  void emit_store(Stream& s, const Op& op, const Frag& xf, const std::function<std::string(const std::string&)>& value) {
    const View& d = view(op.operands[0]);
    if (!d.frag || d.frag->level != 2 || d.frag->role != MmaRole::Acc || d.mem != MemKind::Global || !d.param)
      cannot(&op, "a `" + op.name + "` into something other than a thread's accumulator fragment of a global tensor");
    auto xt = tile_static(xf, &op), dt = tile_static(*d.frag, &op);
    if (xt != dt) cannot(&op, "a store between fragments of different tiles");
    const View& tile = view(d.frag->tile);
    const int rank = f_.info(d.root).rank;
    if (tile.dims[1] != rank - 1 || param_col_major(d.root))
      cannot(&op, "a store whose columns are not the tensor's contiguous dimension");
    if (d.dtype != DType::BF16 && d.dtype != DType::F16) cannot(&op, "a store to " + std::string(dtype_name(d.dtype)));
    const std::string P = pname(d.root);
    const std::string T = cpp_type(d.dtype);
    const std::string E0 = tile.ext[0], E1 = tile.ext[1];
    const int64_t eb = dtype_bytes(d.dtype);
    // Staging: whole 128-byte swizzle slices of the tile's rows, a box of at most 256 rows.
    const int64_t slice_cols = 128 / eb, tile_bytes = xt[0] * xt[1] * eb;
    const bool stageable = staging_allowed_ && &s == &compute_ && xt[0] % 8 == 0 && xt[0] <= 256 &&
                           xt[1] % slice_cols == 0 && store_only(d.root);
    s.line("{  // the warpgroup's " + std::to_string(xt[0]) + " x " + std::to_string(xt[1]) + " accumulator tile -> " + P +
           ", clipped to " + E0 + " x " + E1);
    s.line("  const int tid = loom::rt::thread_in_warpgroup();");
    if (stageable) {
      stage_bytes_ = std::max(stage_bytes_, tile_bytes);
      const int dr = tile.dims[0], dc = tile.dims[1];
      const std::string offr = tile.off[static_cast<size_t>(dr)], offc = tile.off[static_cast<size_t>(dc)];
      const std::string shr = P + ".shape[" + std::to_string(dr) + "]", shc = P + ".shape[" + std::to_string(dc) + "]";
      std::vector<int64_t> box(static_cast<size_t>(rank), 1);
      box[static_cast<size_t>(dr)] = xt[0];
      box[static_cast<size_t>(dc)] = slice_cols;
      const std::string tm = tensor_map(d.root, box, 128, d.dtype);
      const int64_t slices = xt[1] / slice_cols, slice_bytes = xt[0] * 128;
      s.line("  // staged when the box is clipped only by " + P + "'s edges (TMA skips what lies past them)");
      s.line("  const bool staged = " + E0 + " > 0 && " + E1 + " > 0 && (" + E0 + " == " + std::to_string(xt[0]) + " || " +
             offr + " + " + E0 + " == " + shr + ") && (" + E1 + " == " + std::to_string(xt[1]) + " || (" + offc + " + " + E1 +
             " == " + shc + " && (" + shc + " * " + std::to_string(eb) + ") % 16 == 0));");
      s.line("  if (staged) {  // through this warpgroup's staging tile: " + std::to_string(slices) + " slices of " +
             std::to_string(xt[0]) + " rows x 128 bytes, 128-byte swizzle");
      s.line("    uint8_t* const stage = loom_stage + consumer_wg * " + std::to_string(tile_bytes) + ";");
      s.line("    if (tid == 0) loom::rt::tma_store_wait<0>();  // the previous store has read the staging tile");
      s.line("    loom::rt::named_barrier_sync(1 + consumer_wg, 128);  // staging tile free");
      s.line("    const int lane = loom::rt::lane_id(), mrow = 16 * (tid / 32) + (lane & 7) + 8 * ((lane >> 3) & 1);");
      s.line("    #pragma unroll");
      s.line("    for (int c = 0; c < " + std::to_string(xt[1] / 8) + "; c += 2) {  // 8x8 matrices: rows 0-7 / 8-15 of column groups c, c + 1");
      s.line("      const int cg = c + (lane >> 4);");
      s.line("      uint8_t* const row = stage + (cg / 8) * " + std::to_string(slice_bytes) + " + mrow * 128 + (((cg % 8) ^ (mrow % 8)) * 16);");
      s.line("      loom::rt::stmatrix_x4(row, loom::rt::pack2<" + T + ">(" + value("4 * c") + ", " + value("4 * c + 1") + "), loom::rt::pack2<" +
             T + ">(" + value("4 * c + 2") + ", " + value("4 * c + 3") + "),");
      s.line("                            loom::rt::pack2<" + T + ">(" + value("4 * c + 4") + ", " + value("4 * c + 5") +
             "), loom::rt::pack2<" + T + ">(" + value("4 * c + 6") + ", " + value("4 * c + 7") + "));");
      s.line("    }");
      s.line("    loom::rt::fence_proxy_async_shared();  // the stmatrix writes before the TMA store reads them");
      s.line("    loom::rt::named_barrier_sync(1 + consumer_wg, 128);  // staging tile written");
      s.line("    if (tid == 0) {");
      for (int64_t sl = 0; sl < slices; ++sl) {
        std::string call = "      loom::rt::tma_store_" + std::to_string(rank) + "d(&" + tm + ", stage" +
                           (sl ? " + " + std::to_string(sl * slice_bytes) : "");
        for (int dd = rank - 1; dd >= 0; --dd) {
          std::string o = tile.off[static_cast<size_t>(dd)];
          if (dd == dc && sl) o = "(" + o + " + " + std::to_string(sl * slice_cols) + ")";
          call += ", static_cast<int32_t>(" + o + ")";
        }
        s.line(call + ");");
      }
      s.line("      loom::rt::tma_store_commit();");
      s.line("    }");
      s.line("  } else {  // straight from registers");
      s.indent += 2;
      emit_direct_store(s, tile, rank, P, T, xt, value);
      s.indent -= 2;
      s.line("  }");
    } else {
      emit_direct_store(s, tile, rank, P, T, xt, value);
    }
    s.line("}");
  }

  // Whether the kernel touches global tensor `root` only as the destination of element-wise stores
  // (nothing reads it, so async-proxy TMA stores need no ordering against later generic reads).
  bool store_only(ValueId root) {
    bool ok = true;
    auto visit = [&](const ir::Block& b, auto&& self) -> void {
      for (const Op& op : b.ops) {
        for (const ir::Block& r : op.regions) self(r, self);
        if (op.kind != OpKind::Copy && op.kind != OpKind::Call) continue;
        for (size_t i = 0; i < op.operands.size(); ++i) {
          ValueId v = op.operands[i];
          if (f_.info(v).type != ir::Type::Tensor || view(v).root != root) continue;
          const LeafOp* lo = op.kind == OpKind::Call ? find_leaf_op(op.name) : nullptr;
          const bool pure_write = lo && (lo->family == OpFamily::Convert || lo->family == OpFamily::Copy ||
                                         lo->family == OpFamily::Unary || lo->family == OpFamily::Binary ||
                                         lo->family == OpFamily::Scale || lo->family == OpFamily::Fill);
          if (i != 0 || !pure_write) ok = false;
        }
      }
    };
    visit(*kernel_, visit);
    return ok;
  }

  // The direct epilogue store (see emit_store): `tid` is declared by the caller.
  void emit_direct_store(Stream& s, const View& tile, int rank, const std::string& P, const std::string& T,
                         const std::vector<int64_t>& xt, const std::function<std::string(const std::string&)>& value) {
    std::string lin;
    for (int i = 0; i < rank; ++i)
      lin += (i ? " + " : "") + std::string("(") + tile.off[static_cast<size_t>(i)] + ") * " + P + ".stride[" + std::to_string(i) + "]";
    const std::string rs = P + ".stride[" + std::to_string(tile.dims[0]) + "]";
    const std::string base = "reinterpret_cast<" + T + "*>(" + P + ".data)";
    const std::string E0 = tile.ext[0], E1 = tile.ext[1];
    s.line("  " + T + "* const out = " + base + " + " + lin + ";");
    s.line("  const int quad_lane = tid & 3;");
    s.line("  const int64_t row0 = loom::rt::acc_row(tid, 0);");
    if (xt[1] % 32 == 0) {
      // The four lanes of a quad hold two columns each of every 8-column group; a transpose inside
      // the quad (four shuffles of packed pairs) gives each lane 8 consecutive columns of one row:
      // one 16-byte store, and every warp store writes whole 32-byte sectors.
      s.line("  #pragma unroll");
      s.line("  for (int jj = 0; jj < " + std::to_string(xt[1] / 32) + "; ++jj) {");
      s.line("    #pragma unroll");
      s.line("    for (int h = 0; h < 2; ++h) {");
      s.line("      uint32_t pairs[4], mine[4] = {0u, 0u, 0u, 0u};  // pairs[t]: this lane's 2 columns of group 4 jj + t");
      s.line("      #pragma unroll");
      s.line("      for (int t = 0; t < 4; ++t) pairs[t] = loom::rt::pack2<" + T + ">(" + value("(4 * jj + t) * 4 + 2 * h") + ", " +
             value("(4 * jj + t) * 4 + 2 * h + 1") + ");");
      s.line("      #pragma unroll");
      s.line("      for (int step = 0; step < 4; ++step) {  // lane q sends its pair of group 4 jj + (q + step) % 4");
      s.line("        const int send = (quad_lane + step) & 3, from = (quad_lane - step) & 3;");
      s.line("        uint32_t v = send == 0 ? pairs[0] : send == 1 ? pairs[1] : send == 2 ? pairs[2] : pairs[3];");
      s.line("        v = __shfl_sync(0xffffffffu, v, (loom::rt::lane_id() & ~3) | from);");
      s.line("        #pragma unroll");
      s.line("        for (int q = 0; q < 4; ++q) mine[q] = q == from ? v : mine[q];");
      s.line("      }");
      s.line("      const int64_t row = row0 + 8 * h, col = 32 * jj + 8 * quad_lane;");
      s.line("      if (row >= " + E0 + ") continue;");
      s.line("      " + T + "* const p = out + row * " + rs + " + col;");
      s.line("      if (col + 8 <= " + E1 + ") {");
      s.line("        *reinterpret_cast<uint4*>(p) = make_uint4(mine[0], mine[1], mine[2], mine[3]);");
      s.line("      } else {");
      s.line("        #pragma unroll");
      s.line("        for (int e = 0; e < 8; ++e)");
      s.line("          if (col + e < " + E1 + ") reinterpret_cast<uint16_t*>(p)[e] = static_cast<uint16_t>(mine[e / 2] >> (16 * (e & 1)));");
      s.line("      }");
      s.line("    }");
      s.line("  }");
    } else {
      s.line("  #pragma unroll");
      s.line("  for (int r = 0; r < " + std::to_string(xt[1] / 2) + "; r += 2) {");
      s.line("    const int64_t row = loom::rt::acc_row(tid, r), col = loom::rt::acc_col(tid, r);");
      s.line("    if (row >= " + E0 + ") continue;");
      s.line("    " + T + "* const p = out + row * " + rs + " + col;");
      s.line("    const uint32_t pair = loom::rt::pack2<" + T + ">(" + value("r") + ", " + value("r + 1") + ");");
      s.line("    if (col + 1 < " + E1 + ") *reinterpret_cast<uint32_t*>(p) = pair;");
      s.line("    else if (col < " + E1 + ") *reinterpret_cast<uint16_t*>(p) = static_cast<uint16_t>(pair);");
      s.line("  }");
    }
  }

  // ---- 4. assemble --------------------------------------------------------------------------------------
  // Dynamic shared memory after the resource-allocation slots: the epilogue staging tiles (one per
  // compute warpgroup, 1024-byte aligned for the 128-byte swizzle), then the mbarriers. Returns the end.
  int64_t layout_barriers() {
    int64_t end = 0;
    for (auto& [v, s] : f_.smem_slots) end = std::max(end, s.offset + s.bytes);
    if (stage_bytes_) {
      stage_offset_ = (end + 1023) / 1024 * 1024;
      end = stage_offset_ + compute_wgs_ * stage_bytes_;
    }
    int64_t off = (end + 15) / 16 * 16;
    for (Barrier& b : barriers_) {
      b.offset = off;
      off += 8 * b.ring;
    }
    return off;
  }

  // The index and view ops of block b (not its regions) whose operands are in `have`, as C++
  // lines appended to `out`; their results join `have`.
  void immediates_of(const ir::Block& b, std::vector<std::string>& out, std::set<ValueId>& have) {
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

  std::string assemble() {
    const int64_t smem_end = layout_barriers();
    const int64_t smem_bytes = smem_end + 1024;  // + alignment slack of the dynamic smem base
    smem_bytes_ = smem_bytes;
    const int64_t threads = (dma_wgs_ + compute_wgs_) * 128;
    const std::string entry = task_.name.name;
    const std::string kname = entry + "_kernel";
    std::ostringstream o;
    o << "// Generated by loom from " << source_ << " (entry task `" << entry << "`). Do not edit: regenerate with\n"
      << "//   loom compile " << source_ << " -o DIR\n"
      << "// Kernel: " << threads << " threads per block";
    if (ws_)
      o << " (" << dma_wgs_ << " DMA warpgroup at " << f_.warp_roles->dma_regs << " registers, " << compute_wgs_
        << " compute warpgroups at " << f_.warp_roles->compute_regs << ")";
    o << ", " << smem_bytes << " bytes of dynamic shared memory.\n"
      << "// Structure: setup (barriers) / producer (TMA issue) / consumer (wgmma, epilogue); host launcher below.\n"
      << "#include <atomic>\n#include <cstdint>\n#include <cmath>\n#include <cuda_runtime.h>\n#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n\n"
      << "#include \"loom/runtime.cuh\"\n#include \"loom/host.h\"\n#include \"" << entry << ".h\"\n\n"
      << "// Index locals the kernel does not need are left to the compiler to drop.\n"
      << "#pragma nv_diag_suppress 177\n\n"
      << "namespace {\n\n"
      << "__host__ __device__ __forceinline__ int64_t loom_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }\n"
      << "__host__ __device__ __forceinline__ int64_t loom_min(int64_t a, int64_t b) { return a < b ? a : b; }\n"
      << "__host__ __device__ __forceinline__ int64_t loom_max(int64_t a, int64_t b) { return a > b ? a : b; }\n"
      << "// The extent of a block [start, start + size) of a dimension of `extent` elements, clipped.\n"
      << "__host__ __device__ __forceinline__ int64_t loom_clip(int64_t extent, int64_t start, int64_t size) {\n"
      << "  return loom_max(0, loom_min(size, extent - start));\n}\n\n";
    head_ = o.str();
    o.str("");
    o << "constexpr int kThreads = " << threads << ";\n"
      << "constexpr int kSmemBytes = " << smem_bytes << ";\n\n";
    // Kernel signature.
    o << "__global__ void __launch_bounds__(kThreads, 1) " << kname << "(";
    std::vector<std::string> params;
    for (ValueId p : f_.params) {
      if (f_.info(p).type == ir::Type::Tensor) params.push_back("const loom_tensor " + pname(p));
      else params.push_back("const " + scalar_type(p) + " " + var(p));
    }
    for (const TensorMap& t : maps_) params.push_back("const __grid_constant__ CUtensorMap " + t.name);
    for (size_t i = 0; i < grid_.size(); ++i) params.push_back("const int64_t grid_n" + std::to_string(i));
    for (size_t i = 0; i < params.size(); ++i) o << (i ? ",\n    " : "") << params[i];
    o << ") {\n";
    o << "  extern __shared__ __align__(1024) uint8_t loom_smem_raw[];\n"
      << "  // 1024-byte aligned base (128-byte swizzle atoms are addressed from 1024-aligned bits).\n"
      << "  uint8_t* const smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(loom_smem_raw) + 1023) & ~uintptr_t{1023});\n";
    // Barriers.
    o << "  // ---- setup: mbarriers (after the tensors' slots)\n";
    for (const Barrier& b : barriers_)
      o << "  uint64_t* const " << b.name << " = reinterpret_cast<uint64_t*>(smem + " << b.offset << ");  // [" << b.ring
        << "] " << b.comment << "\n";
    if (stage_bytes_)
      o << "  // epilogue staging tiles, one per compute warpgroup (" << compute_wgs_ << " x " << stage_bytes_ << " bytes)\n"
        << "  uint8_t* const loom_stage = smem + " << stage_offset_ << ";\n";
    o << "  if (threadIdx.x == 0) {\n";
    for (const TensorMap& t : maps_) o << "    loom::rt::prefetch_tensormap(&" << t.name << ");\n";
    for (const Barrier& b : barriers_)
      o << "    for (int s = 0; s < " << b.ring << "; ++s) loom::rt::mbarrier::init(&" << b.name << "[s], " << b.count << ");\n";
    o << "    loom::rt::fence_barrier_init();\n  }\n  __syncthreads();\n";
    // The persistent tile loop each role runs: decode the tile (grouped order on the two innermost
    // block loops), recompute the tile's index and view values, then the role's code.
    auto tile_loop = [&](const Stream& st, const std::string& ind) {
      for (const Op* L : loops_) o << ind << "int64_t " << base(L) << " = 0;  // iterations of loop " << var(L->result) << " so far\n";
      o << ind << "int64_t tile_iter = 0;  // tiles this block has run\n";
      o << ind << "(void)tile_iter;\n";
      const size_t G = grid_.size();
      std::string total = "grid_n0";
      for (size_t i = 1; i < G; ++i) total += " * grid_n" + std::to_string(i);
      o << ind << "for (int64_t tile = blockIdx.x; tile < " << total << "; tile += gridDim.x) {\n";
      const std::string in = ind + "  ";
      o << in << "int64_t lin = tile;\n";
      if (G >= 2) {
        std::string a = "grid_n" + std::to_string(G - 2), b = "grid_n" + std::to_string(G - 1);
        if (G > 2)
          o << in << "int64_t outer = lin / (" << a << " * " << b << ");\n"
            << in << "lin %= " << a << " * " << b << ";\n";
        o << in << "// 8 tiles of loop " << G - 2 << " walk loop " << G - 1 << " together (their operands stay in L2)\n"
          << in << "const int64_t group = lin / (8 * " << b << "), first = group * 8, gsize = loom_min(" << a << " - first, 8);\n"
          << in << "const int64_t " << var(grid_[G - 2]->regions[0].args[0]) << " = first + (lin % (8 * " << b << ")) % gsize;\n"
          << in << "const int64_t " << var(grid_[G - 1]->regions[0].args[0]) << " = (lin % (8 * " << b << ")) / gsize;\n";
        for (size_t i = G - 2; i-- > 0;)
          o << in << "const int64_t " << var(grid_[i]->regions[0].args[0]) << " = outer % grid_n" << i << ";\n"
            << in << "outer /= grid_n" << i << ";\n";
      } else {
        o << in << "const int64_t " << var(grid_[0]->regions[0].args[0]) << " = lin;\n";
      }
      for (auto& l : prologue_) o << in << l << "\n";
      for (const std::string& l : st.lines) o << ind << l << "\n";
      o << ind << "  ++tile_iter;\n";
      o << ind << "}\n";
    };
    if (ws_) {
      o << "  if (loom::rt::warpgroup_index() < " << dma_wgs_ << ") {\n"
        << "    // ---- producer: the DMA role, one elected thread issues every TMA copy\n";
      if (f_.warp_roles->dma_regs) o << "    loom::rt::setmaxnreg_dec<" << f_.warp_roles->dma_regs << ">();\n";
      o << "    if (loom::rt::warpgroup_index() == 0 && loom::rt::warp_in_warpgroup() == 0 && loom::rt::elect_one_sync()) {\n";
      tile_loop(dma_, "      ");
      o << "    }\n  } else {\n"
        << "    // ---- consumer: the compute role, " << compute_wgs_ << " warpgroups\n";
      if (f_.warp_roles->compute_regs) o << "    loom::rt::setmaxnreg_inc<" << f_.warp_roles->compute_regs << ">();\n";
      o << "    const int64_t consumer_wg = loom::rt::warpgroup_index() - " << dma_wgs_ << ";\n";
      tile_loop(compute_, "    ");
      if (stage_bytes_) o << "    if (loom::rt::thread_in_warpgroup() == 0) loom::rt::tma_store_wait<0>();  // the last stores have read the staging tile\n";
      o << "  }\n";
    } else {
      o << "  const int64_t consumer_wg = loom::rt::warpgroup_index();\n";
      tile_loop(compute_, "  ");
      if (stage_bytes_) o << "  if (loom::rt::thread_in_warpgroup() == 0) loom::rt::tma_store_wait<0>();  // the last stores have read the staging tile\n";
    }
    o << "}\n\n";
    o << host_launcher(kname);
    body_ = o.str();
    threads_ = threads;
    kernel_line_ = std::to_string(threads) + " threads per block" +
                   (ws_ ? " (" + std::to_string(dma_wgs_) + " DMA warpgroup at " + std::to_string(f_.warp_roles->dma_regs) +
                              " registers, " + std::to_string(compute_wgs_) + " compute warpgroups at " +
                              std::to_string(f_.warp_roles->compute_regs) + ")"
                        : std::string()) +
                   ", " + std::to_string(smem_bytes) + " bytes of dynamic shared memory";
    return head_ + body_ + "}  // namespace\n\n" + abi_functions(smem_bytes, threads);
  }

  // Dimension name -> the (tensor, dim) that defines it, from the task declaration.
  std::string host_launcher(const std::string& kname) {
    std::ostringstream o;
    const std::string entry = task_.name.name;
    o << "// Checks every argument, builds the tensor maps from the run-time extents and strides, and launches.\n"
      << "int launch_" << entry << "(";
    o << launch_params() << ") {\n";
    // Argument checks.
    std::map<std::string, std::string> dim_first;
    for (ValueId p : f_.params) {
      const ir::ValueInfo& vi = f_.info(p);
      if (vi.type != ir::Type::Tensor) continue;
      const std::string P = pname(p);
      o << "  if (" << P << ".data == nullptr) return LOOM_ERR_NULL;\n"
        << "  if (" << P << ".rank != " << vi.rank << ") return LOOM_ERR_RANK;\n"
        << "  if (" << P << ".dtype != " << abi_dtype(vi.dtype) << ") return LOOM_ERR_DTYPE;\n"
        << "  for (int d = 0; d < " << vi.rank << "; ++d) if (" << P << ".shape[d] < 0) return LOOM_ERR_SHAPE;\n";
      if (vi.rank >= 2 && param_col_major(p)) {
        const int a = vi.rank - 2, b = vi.rank - 1;
        o << "  // column-major (layout(" << P << ": col_major)): dimension " << a << " is contiguous\n"
          << "  if (" << P << ".stride[" << a << "] != 1) return LOOM_ERR_STRIDE;\n"
          << "  for (int d = 0; d < " << vi.rank << "; ++d) {\n"
          << "    if (d == " << a << ") continue;\n"
          << "    if (" << P << ".stride[d] <= 0) return LOOM_ERR_STRIDE;\n"
          << "    if ((" << P << ".stride[d] * " << dtype_bytes(vi.dtype) << ") % 16 != 0) return LOOM_ERR_ALIGN;\n"
          << "  }\n";
        (void)b;
      } else {
        o << "  if (" << P << ".stride[" << vi.rank - 1 << "] != 1) return LOOM_ERR_STRIDE;\n"
          << "  for (int d = 0; d + 1 < " << vi.rank << "; ++d) {\n"
          << "    if (" << P << ".stride[d] <= 0) return LOOM_ERR_STRIDE;\n"
          << "    if ((" << P << ".stride[d] * " << dtype_bytes(vi.dtype) << ") % 16 != 0) return LOOM_ERR_ALIGN;\n"
          << "  }\n";
      }
      o
        << "  if (reinterpret_cast<uintptr_t>(" << P << ".data) % 16 != 0) return LOOM_ERR_ALIGN;\n";
    }
    for (const Param& prm : task_.params) {
      if (!prm.is_tensor) continue;
      for (size_t d = 0; d < prm.dims.size(); ++d) {
        const std::string here = prm.name.name + ".shape[" + std::to_string(d) + "]";
        auto [it, fresh] = dim_first.emplace(prm.dims[d].name, here);
        if (!fresh) o << "  if (" << here << " != " << it->second << ") return LOOM_ERR_SHAPE;  // " << prm.dims[d].name << "\n";
      }
    }
    // Grid.
    std::vector<std::string> pre;
    std::set<ValueId> have(f_.params.begin(), f_.params.end());
    o << "  // the grid: the block loops' trip counts (inner loops' at index 0 of the outer ones)\n";
    for (size_t i = 0; i < grid_.size(); ++i) {
      immediates_of(i == 0 ? f_.body : grid_[i - 1]->regions[0], pre, have);
      for (auto& l : pre) o << "  " << l << "\n";
      pre.clear();
      o << "  const int64_t grid_n" << i << " = " << var(grid_[i]->operands[0]) << ";\n";
      o << "  const int64_t " << var(grid_[i]->regions[0].args[0]) << " = 0;\n";
      o << "  (void)" << var(grid_[i]->regions[0].args[0]) << ";\n";
      have.insert(grid_[i]->regions[0].args[0]);
    }
    std::string blocks = "grid_n0";
    for (size_t i = 1; i < grid_.size(); ++i) blocks += " * grid_n" + std::to_string(i);
    o << "  const int64_t blocks = " << blocks << ";\n"
      << "  if (blocks == 0) return LOOM_OK;  // an empty output: nothing to launch\n"
      << "  if (blocks > 2147483647) return LOOM_ERR_SHAPE;\n";
    // Device and shared memory.
    o << "  int device = 0;\n"
      << "  if (cudaGetDevice(&device) != cudaSuccess) return LOOM_ERR_DEVICE;\n"
      << "  // per device: 0 unknown, 1 ready, 2 unusable; and its SM count (set before `checked`)\n"
      << "  static std::atomic<int> checked[64];\n"
      << "  static std::atomic<int> sms[64];\n"
      << "  if (device < 0 || device >= 64) return LOOM_ERR_DEVICE;\n"
      << "  if (checked[device] == 0) {\n"
      << "    int major = 0, minor = 0, optin = 0;\n"
      << "    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);\n"
      << "    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);\n"
      << "    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);\n"
      << "    if (major != 9 || minor != 0) { checked[device] = 2; (void)cudaGetLastError(); return LOOM_ERR_DEVICE; }\n"
      << "    if (optin < kSmemBytes) { checked[device] = 2; return LOOM_ERR_SMEM; }\n"
      << "    if (cudaFuncSetAttribute(" << kname << ", cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes) != cudaSuccess) {\n"
      << "      (void)cudaGetLastError();\n      return LOOM_ERR_LAUNCH;\n    }\n"
      << "    int count = 0;\n"
      << "    cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);\n"
      << "    sms[device] = count;\n"
      << "    checked[device] = 1;\n"
      << "  }\n"
      << "  if (checked[device] == 2) return LOOM_ERR_DEVICE;\n";
    // Tensor maps.
    for (const TensorMap& t : maps_) {
      const std::string P = pname(t.param);
      const int rank = f_.info(t.param).rank;
      o << "  alignas(64) CUtensorMap " << t.name << ";\n  {\n"
        << "    loom::host::TensorMapSpec s;\n"
        << "    s.dtype = " << tma_dtype(t.dtype) << ";\n"
        << "    s.rank = " << rank << ";\n"
        << "    s.global_address = " << P << ".data;\n";
      const std::vector<int> order = physical_order(t.param);  // innermost first
      for (int d = 0; d < rank; ++d) {
        int rd = order[static_cast<size_t>(d)];
        o << "    s.global_dims[" << d << "] = static_cast<uint64_t>(" << P << ".shape[" << rd << "] > 0 ? " << P
          << ".shape[" << rd << "] : 1);\n";
        if (d > 0)
          o << "    s.global_strides[" << d - 1 << "] = static_cast<uint64_t>(" << P << ".stride[" << rd << "]) * "
            << dtype_bytes(t.dtype) << ";\n";
        o << "    s.box_dims[" << d << "] = " << t.box[static_cast<size_t>(rd)] << ";\n";
      }
      o << "    s.swizzle = " << swizzle_enum(t.swizzle) << ";\n"
        << "    const int st = loom::host::encode_tensor_map(&" << t.name << ", s);\n"
        << "    if (st == loom::host::kTensorMapMisalignedAddress || st == loom::host::kTensorMapStrideNotMultipleOf16) return LOOM_ERR_ALIGN;\n"
        << "    if (st != loom::host::kTensorMapOk) return LOOM_ERR_TENSOR_MAP;\n  }\n";
    }
    o << "  // persistent: one block per SM at most, each runs tile after tile\n"
      << "  const int64_t sm_count = sms[device].load();\n"
      << "  const int64_t grid = sm_count > 0 && blocks > sm_count ? sm_count : blocks;\n"
      << "  " << kname << "<<<dim3(static_cast<unsigned>(grid)), dim3(kThreads), kSmemBytes, stream>>>(";
    std::vector<std::string> args;
    for (ValueId p : f_.params) args.push_back(f_.info(p).type == ir::Type::Tensor ? pname(p) : var(p));
    for (const TensorMap& t : maps_) args.push_back(t.name);
    for (size_t i = 0; i < grid_.size(); ++i) args.push_back("grid_n" + std::to_string(i));
    for (size_t i = 0; i < args.size(); ++i) o << (i ? ", " : "") << args[i];
    o << ");\n"
      << "  if (cudaGetLastError() != cudaSuccess) return LOOM_ERR_LAUNCH;\n"
      << "  return LOOM_OK;\n}\n\n";
    return o.str();
  }

  // A scalar parameter's C type (docs/artifact.md): f32 -> float, integers -> int64_t.
  std::string scalar_type(ValueId p) const { return f_.info(p).type == ir::Type::Float ? "float" : "int64_t"; }

  std::string abi_signature() {
    const std::string entry = task_.name.name;
    std::string s = "int loom_" + entry + "(";
    for (ValueId p : f_.params)
      s += (f_.info(p).type == ir::Type::Tensor ? "loom_tensor " + pname(p) : scalar_type(p) + " " + pname(p)) + ", ";
    return s + "cudaStream_t stream)";
  }

  std::string abi_functions(int64_t smem_bytes, int64_t threads) {
    std::ostringstream o;
    const std::string entry = task_.name.name;
    o << "extern \"C\" " << abi_signature() << " {\n  return launch_" << entry << "(";
    for (ValueId p : f_.params) o << pname(p) << ", ";
    o << "stream);\n}\n\n";
    o << "extern \"C\" const loom_kernel_info* loom_" << entry << "_info(void) {\n"
      << "  static const loom_arg_info args[] = {\n";
    for (size_t i = 0; i < task_.params.size() && i < f_.params.size(); ++i) {
      const Param& prm = task_.params[i];
      const ir::ValueInfo& vi = f_.info(f_.params[i]);
      if (!prm.is_tensor) {
        o << "      {\"" << prm.name.name << "\", LOOM_ARG_SCALAR, " << (scalar_type(f_.params[i]) == "float" ? "LOOM_F32" : "LOOM_I64")
          << ", 0, {nullptr}, 0, LOOM_PRIV_NONE},\n";
        continue;
      }
      o << "      {\"" << prm.name.name << "\", LOOM_ARG_TENSOR, " << abi_dtype(vi.dtype) << ", " << vi.rank << ", {";
      for (size_t d = 0; d < 5; ++d) o << (d ? ", " : "") << (d < prm.dims.size() ? "\"" + prm.dims[d].name + "\"" : "nullptr");
      const char* priv = prm.priv == Privilege::Read ? "LOOM_PRIV_R" : prm.priv == Privilege::Write ? "LOOM_PRIV_W" : "LOOM_PRIV_RW";
      o << "}, 16, " << priv << "},\n";
    }
    o << "  };\n"
      << "  static const loom_kernel_info info = {\"" << entry << "\", " << task_.params.size() << ", args, " << smem_bytes
      << ", " << threads << "};\n"
      << "  return &info;\n}\n";
    return o.str();
  }

  std::string header() {
    const std::string entry = task_.name.name;
    std::string guard = "LOOM_GENERATED_" + entry + "_H";
    std::transform(guard.begin(), guard.end(), guard.begin(), [](unsigned char c) { return std::toupper(c); });
    std::ostringstream o;
    o << "/* Generated by loom from " << source_ << " (entry task `" << entry << "`). Do not edit. */\n"
      << "#ifndef " << guard << "\n#define " << guard << "\n\n"
      << "#include <cuda_runtime_api.h>\n\n#include \"loom/abi.h\"\n\n"
      << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
      << "/* task " << entry << "(";
    for (size_t i = 0; i < task_.params.size(); ++i) {
      const Param& prm = task_.params[i];
      o << (i ? ", " : "") << prm.name.name << ": ";
      if (prm.is_tensor) {
        o << privilege_spelling(prm.priv) << " " << dtype_name(f_.info(f_.params[i]).dtype) << "[";
        for (size_t d = 0; d < prm.dims.size(); ++d) o << (d ? ", " : "") << prm.dims[d].name;
        o << "]";
        if (param_col_major(f_.params[i])) o << " column-major (stride[" << prm.dims.size() - 2 << "] == 1)";
      } else {
        o << prm.elem.name;
      }
    }
    o << ")\n   Returns LOOM_OK (0) or a LOOM_ERR_* code; launches on `stream` (asynchronous). */\n"
      << abi_signature() << ";\n\n"
      << "/* Arguments, element types, alignment, shared memory and threads of the kernel. */\n"
      << "const loom_kernel_info* loom_" << entry << "_info(void);\n\n"
      << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
    return o.str();
  }

  const Function& f_;
  const TaskDecl& task_;
  std::string source_;
  StaticBounds bounds_;
  std::vector<std::string> names_;
  std::map<ValueId, const Op*> def_;
  std::map<ValueId, const Op*> arg_loop_;
  std::map<const Op*, const Op*> parent_;
  std::map<ValueId, View> views_;
  std::vector<std::string> pending_decls_;  // a piece's offset/extent locals, as view() makes them
  std::vector<const Op*> grid_;
  const ir::Block* kernel_ = nullptr;
  bool ws_ = false;
  int64_t compute_wgs_ = 1, dma_wgs_ = 0;
  Stream dma_, compute_;
  std::vector<Barrier> barriers_;
  std::vector<Signal> signals_;
  std::map<const Op*, int> signal_of_op_;
  std::map<const Op*, int> signal_of_loop_;
  std::map<const Op*, std::string> tma_bar_;
  std::vector<TensorMap> maps_;
  std::set<ValueId> accumulators_;
  std::vector<const Op*> loops_;  // every loop of the kernel block (their running counters)
  std::vector<std::string> prologue_;
  bool staging_allowed_ = true;
  int64_t stage_bytes_ = 0;    // per compute warpgroup: the largest staged epilogue tile
  int64_t stage_offset_ = 0;   // of the staging tiles in dynamic shared memory
  int64_t smem_bytes_ = 0;     // the kernel's dynamic shared memory (after assemble)
  int64_t threads_ = 0;
  // assemble()'s pieces, for a file of several kernels (one per mapping): the file head (comment,
  // includes, helpers), the kernel and its launcher, and a one-line description of the kernel.
  std::string head_, body_, kernel_line_;
};

}  // namespace

namespace {

// One mapping's kernel: with epilogue staging when it fits the block's budget, else without.
std::unique_ptr<CudaGen> generate_one(const ir::Function& f, const TaskDecl& task, const std::string& source,
                                      CudaArtifact& out) {
  auto staged = std::make_unique<CudaGen>(f, task, source, /*staging_allowed=*/true);
  out = staged->run();
  if (!staged->staging_over_budget()) return staged;
  auto direct = std::make_unique<CudaGen>(f, task, source, /*staging_allowed=*/false);
  out = direct->run();
  return direct;
}

// A `when(...)` as C++ over the launcher's locals (dimension names are int64_t locals, SMS too).
std::string condition_cpp(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Int: return std::to_string(e.ival);
    case ExprKind::Name: return "v_" + e.name;
    case ExprKind::Unary: return "(-" + condition_cpp(e.args.at(0)) + ")";
    case ExprKind::Binary:
      return "(" + condition_cpp(e.args.at(0)) + " " + std::string(1, e.op) + " " + condition_cpp(e.args.at(1)) + ")";
    case ExprKind::Call:
      return "loom_" + e.name + "(" + condition_cpp(e.args.at(0)) + ", " + condition_cpp(e.args.at(1)) + ")";
    default: throw InternalError("codegen: a mapping condition the checker should have refused");
  }
}

}  // namespace

CudaArtifact generate_cuda(const ir::Function& f, const TaskDecl& task, const std::string& source) {
  CudaArtifact a;
  generate_one(f, task, source, a);
  return a;
}

CudaArtifact generate_cuda(const std::vector<MappingKernel>& kernels, const TaskDecl& task, const std::string& source) {
  if (kernels.empty()) throw InternalError("codegen: no mapping to generate");
  if (kernels.size() == 1) return generate_cuda(*kernels[0].function, task, source);
  std::vector<std::unique_ptr<CudaGen>> gens;
  CudaArtifact first;
  int64_t smem = 0, threads = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    CudaArtifact one;
    gens.push_back(generate_one(*kernels[i].function, task, source, one));
    if (i == 0) first = one;
    else if (one.header != first.header)
      throw InternalError("codegen: the mappings of one program give different C ABIs");
    smem = std::max(smem, gens.back()->smem_bytes());
    threads = std::max(threads, gens.back()->threads());
  }
  const std::string entry = task.name.name;
  std::ostringstream o;
  std::string head = gens[0]->head();
  // The first two comment lines name the file; the kernel line describes each mapping below instead.
  size_t k = head.find("// Kernel: ");
  size_t ke = head.find('\n', k);
  head.replace(k, ke + 1 - k, "// Kernels: one per mapping (" + std::to_string(kernels.size()) +
                                  "); launch_" + entry + " picks one per call, the first specialization whose when(...) holds, else the default.\n");
  o << head;
  for (size_t i = 0; i < kernels.size(); ++i) {
    o << "// ==== mapping " << i << (kernels[i].when ? ": " + kernels[i].when_text : std::string(": the default")) << "\n"
      << "// Kernel: " << gens[i]->kernel_line() << ".\n"
      << "namespace mapping" << i << " {\n\n"
      << gens[i]->body() << "}  // namespace mapping" << i << "\n\n";
  }
  // The dispatching launcher.
  std::set<std::string> names;
  for (const MappingKernel& mk : kernels)
    if (mk.when) {
      for (const Expr* e : {&mk.when->lhs, &mk.when->rhs}) {
        std::function<void(const Expr&)> rec = [&](const Expr& x) {
          if (x.kind == ExprKind::Name) names.insert(x.name);
          for (const Expr& y : x.args) rec(y);
        };
        rec(*e);
      }
    }
  o << "// Picks the mapping for this call from the run-time extents: the first specialization whose\n"
    << "// when(...) holds, else the default. Each mapping's launcher checks the arguments itself.\n"
    << "int launch_" << entry << "(" << gens[0]->launch_params() << ") {\n";
  std::set<std::string> done;
  for (const Param& prm : task.params) {
    if (!prm.is_tensor) continue;
    for (size_t d = 0; d < prm.dims.size(); ++d)
      if (names.count(prm.dims[d].name) && done.insert(prm.dims[d].name).second)
        o << "  const int64_t v_" << prm.dims[d].name << " = " << prm.name.name << ".shape[" << d << "];\n";
  }
  if (names.count("SMS"))
    o << "  // SMS: the current device's multiprocessor count (0 when it cannot be read: the launchers report that)\n"
      << "  int64_t v_SMS = 0;\n"
      << "  {\n"
      << "    static std::atomic<int> sms[64];\n"
      << "    int device = 0, count = 0;\n"
      << "    if (cudaGetDevice(&device) == cudaSuccess && device >= 0 && device < 64) {\n"
      << "      if (sms[device] == 0) {\n"
      << "        if (cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) == cudaSuccess) sms[device] = count;\n"
      << "        else (void)cudaGetLastError();  // our query failed: do not leave its error behind\n"
      << "      }\n"
      << "      v_SMS = sms[device];\n"
      << "    }\n"
      << "  }\n";
  for (size_t i = 1; i < kernels.size(); ++i)
    o << "  if (" << condition_cpp(kernels[i].when->lhs) << " " << kernels[i].when->cmp << " "
      << condition_cpp(kernels[i].when->rhs) << ") return mapping" << i << "::launch_" << entry << "("
      << gens[0]->launch_args() << ");  // " << kernels[i].when_text << "\n";
  o << "  return mapping0::launch_" << entry << "(" << gens[0]->launch_args() << ");\n}\n\n";
  o << "}  // namespace\n\n" << gens[0]->abi(smem, threads);
  first.cu = o.str();
  return first;
}

}  // namespace loom::codegen
