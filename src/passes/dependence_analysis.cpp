// Dependence analysis (Cypress section 4.2.1): a syntax-directed, in-order traversal of the
// instantiated task tree that emits the event IR (src/ir/ir.h). Test:
// tests/unit/dependence_analysis_test.cpp; goldens tests/golden/ir/<example>.dep.txt.
//
// WHAT IT EMITS
// - Function: named after the entry instance; one parameter per entry task parameter (tensors:
//   their element type, GLOBAL, rank; f32 scalars: float; i32/index scalars: index); the entry
//   task's signature (names, privileges, dimension names, scalar types) and, for a specialized
//   mapping, its when(...) condition, for the back end's C ABI and launcher.
// - Scalars: index ops. A dimension named in a task signature is `dim %t, d` on that parameter's
//   tensor (emitted where first used); a tunable is a `const`; loop variables are region arguments;
//   `pieces(P)` is computed from the partition (blocks: cdiv of the dims; mma: the machine's
//   sub-processor count). A number in a leaf op's scalar argument (`fill(X, -1e30)`) is `fconst`.
// - Partitions are not values: indexing one (`Cp[i, j]`) emits a `piece` of its source with the
//   partition's spec (mma: role, instruction shape, holder = processor of the instance running
//   the variant that partitions).
// - A local `tensor(E, [..])` is an `alloc NONE`: where it is really materialized is decided by the
//   launches it is passed to (their fresh allocations carry the mapped memory); copy elimination
//   removes the NONE allocation or reports it (issue 3, 4.2.3).
// - A launch (inline, or inside a loop) follows the copy-in/copy-out discipline:
//   (1) a fresh `alloc` per tensor argument, in the memory the callee's instance maps it to, with
//       the argument's extents (`dim` ops on the argument), named after the callee's parameter;
//   (2) for each argument the callee reads (r, rw, red) a `copy` from the caller's tensor or piece
//       into it, after the last write of the argument's root (true dependence);
//   (3) the callee's variant, lowered recursively with the fresh allocations as its parameters;
//       inside, a parameter's state starts as its copy-in event (nothing for w);
//   (4) for each argument the callee writes (w, rw, red) a `copy` back, after the callee's last
//       write of that parameter and after the last write and the reads since of the caller's root
//       (output and anti dependences).
//   A red(sum) / red(max) argument is a reduction instance (as in Legion): instead of a copy-in,
//   `call fill(%X, 0 | -inf)` sets its allocation to the reduction's identity, and its copy-out is
//   the reducing `copy.sum` / `copy.max` (dst = dst + X, max(dst, X)). So the lanes of a quad that
//   reduce into the same replicated rows each fold in their partial result, in any order. (On
//   floats that is equal to the reference's lane-by-lane sum only up to rounding: each partial is
//   rounded to the allocation's type and folded in schedule order.)
// - Ordering: every variant execution keeps, per root tensor (a parameter or a local; a piece
//   counts as its root), the events of the last write and of the reads since. A read waits for the
//   last write; a write waits for the last write and every read since. `after` lists hold all of
//   them (deduplicated); `join` is emitted only where one EventRef is needed (a yield, the result).
// - Leaf variants: each built-in op is `call NAME(args)` ordered by the op table's accesses
//   (src/ir/leaf_ops.h); an extern leaf is one `call extern:<variant>(params...)` ordered by the
//   task's privileges.
// - srange -> `for` (one per loop variable, nested; the innermost ones carry the instance's
//   pipeline(D) and warpspecialize). Preconditions: the pending events of the roots
//   the body touches (writer for a root it only reads; writer and readers for one it writes).
//   Inside, a root the body writes starts as the carried event %c (this orders iteration k after
//   k - 1 on it); a root the body only reads starts with nothing pending (the loop's preconditions
//   cover its last write, and no iteration writes it) — so the copy-ins of the next K tile do not
//   wait on %c and may run ahead, as ir.h and section 4.2.5 expect. The body yields the join of
//   the states of the roots it touched (and of the locals it created); after the loop a written
//   root's last write is the loop's event, and an only-read root gets the loop's event as a reader.
// - Replicated row pieces (rank-1 `mma` partitions held by a WARP; see the header for the rule and
//   an example): for a prange whose body's launches read such pieces of a source the loop writes,
//   the source is copied to a snapshot (`<name>_snap`, origin "...: prange ... (snapshot of X)")
//   before the pfor, and the lanes' copy-ins read their pieces of it (the copy-outs still write the
//   real tensor). Only statements directly in the body qualify (a nested loop starts without
//   snapshots), and only while the iteration has not written the source itself.
// - prange -> `pfor PROC` (one per loop variable, nested), PROC = processor kind of the instance
//   the first launch in the body runs on. Inside, outer roots start with nothing pending (the
//   pfor's preconditions cover them); the body yields the iteration's completion; after the loop
//   a written root's last write is E[:] (broadcast) and an only-read root gets E[:] as a reader.
// - Names: source names (C, Acc, Ap, k, ...); fresh allocations after the callee's parameter;
//   events "e" (pfor arrays "E", carried "c"), constants "cN". Every allocation, copy, call, join
//   and loop has origin "<instance>: <statement>" and the statement's location.
// SOURCE: this file (the driver, values and ops, launches, leaf calls, variant bodies),
// dependence_analysis_exprs.cpp (scalar expressions, tensor views, bindings) and
// dependence_analysis_loops.cpp (srange / prange, snapshots); the Lowering class and its state in
// dependence_analysis_internal.h.
#include "passes/dependence_analysis.h"

#include <limits>

#include "ir/leaf_ops.h"
#include "loom/frontend.h"
#include "passes/dependence_analysis_internal.h"

namespace loom {
namespace dependence_analysis_detail {

std::string stmt_text(const Stmt& s) {
  auto list = [](const std::vector<Expr>& xs) {
    std::string out;
    for (size_t i = 0; i < xs.size(); ++i) out += (i ? ", " : "") + format_expr(xs[i]);
    return out;
  };
  switch (s.kind) {
    case StmtKind::Bind: return s.target.name + " = " + format_expr(s.value);
    case StmtKind::Call:
      return (s.label.name.empty() ? "" : s.label.name + ": ") + s.target.name + "(" + list(s.args) + ")";
    case StmtKind::Loop: {
      std::string vars;
      for (size_t i = 0; i < s.vars.size(); ++i) vars += (i ? ", " : "") + s.vars[i].name;
      return std::string(s.parallel ? "prange " : "srange ") + vars + " in " + list(s.extents);
    }
  }
  return "";
}

namespace {

bool is_number_literal(const Expr& e) {
  if (e.kind == ExprKind::Int || e.kind == ExprKind::Float) return true;
  return e.kind == ExprKind::Unary && e.op == '-' && is_number_literal(e.args[0]);
}

double number_value(const Expr& e) {
  if (e.kind == ExprKind::Int) return static_cast<double>(e.ival);
  if (e.kind == ExprKind::Float) return std::stod(e.name);
  return -number_value(e.args[0]);
}

ir::ParamPrivilege param_privilege(Privilege p) {
  switch (p) {
    case Privilege::Read: return ir::ParamPrivilege::Read;
    case Privilege::Write: return ir::ParamPrivilege::Write;
    case Privilege::ReadWrite: return ir::ParamPrivilege::ReadWrite;
    case Privilege::ReduceSum: return ir::ParamPrivilege::ReduceSum;
    case Privilege::ReduceMax: return ir::ParamPrivilege::ReduceMax;
  }
  LOOM_INTERNAL("dependence analysis: unknown privilege");
}

// The entry task's declaration as the IR keeps it (ir.h, THE ENTRY SIGNATURE).
ir::EntrySignature entry_signature(const TaskDecl& task) {
  ir::EntrySignature sig;
  sig.task = task.name.name;
  for (const Param& prm : task.params) {
    ir::EntryParam ep;
    ep.name = prm.name.name;
    if (prm.is_tensor) {
      ep.privilege = param_privilege(prm.priv);
      for (const Ident& d : prm.dims) ep.dims.push_back(d.name);
    } else {
      ep.scalar_type = prm.elem.name;
    }
    sig.params.push_back(std::move(ep));
  }
  return sig;
}

// A specialization's when(...) as the IR keeps it (ir.h, SPECIALIZED MAPPING); the checker
// allowed only integers, names, unary minus, + - * / % and cdiv/min/max calls.
ir::SizeExpr size_expr(const Expr& e) {
  ir::SizeExpr x;
  switch (e.kind) {
    case ExprKind::Int: x.kind = ir::SizeExpr::Kind::Int; x.value = e.ival; return x;
    case ExprKind::Name: x.kind = ir::SizeExpr::Kind::Name; x.name = e.name; return x;
    case ExprKind::Unary: x.kind = ir::SizeExpr::Kind::Neg; break;
    case ExprKind::Binary: x.kind = ir::SizeExpr::Kind::Binary; x.op = e.op; break;
    case ExprKind::Call: x.kind = ir::SizeExpr::Kind::Call; x.name = e.name; break;
    default: LOOM_INTERNAL("dependence analysis: a mapping condition the checker should have refused");
  }
  for (const Expr& a : e.args) x.args.push_back(size_expr(a));
  return x;
}

ir::LaunchCondition launch_condition(const MappingCondition& c) {
  if (c.fastest) return ir::LaunchCondition{{}, "", {}, true};
  return {size_expr(c.lhs), c.cmp, size_expr(c.rhs), false};
}

}  // namespace

ir::Function Lowering::run() {
  const TreeNode& entry = t_.nodes[0];
  f_.name = entry.instance;
  const TaskDecl* task = p_.find_task(entry.task);
  LOOM_ASSERT(task && task->params.size() == entry.args.size(), "entry task " << entry.task);
  std::vector<ValueId> params;
  for (size_t i = 0; i < entry.args.size(); ++i) {
    const TreeArg& a = entry.args[i];
    ValueId v;
    if (a.is_tensor) {
      v = tensor_value(a.dtype, a.mem, static_cast<int>(task->params[i].dims.size()), a.name);
      ir::TileLayout l = tile_layout(entry.instance, task->params[i].name.name);
      if (l.given) f_.param_layouts[v] = l;
    } else {
      v = f_.add_value(ValueInfo{task->params[i].elem.name == "f32" ? Type::Float : Type::Index, a.name});
    }
    params.push_back(v);
  }
  f_.params = params;
  f_.entry = entry_signature(*task);
  if (p_.mapping->when) f_.when = launch_condition(*p_.mapping->when);
  cur_ = &f_.body;
  NodeResult r = lower_node(0, params, std::vector<Events>(params.size()));
  origin_ = entry.instance + ": end";
  loc_ = {};
  f_.result = one_event(r.completion);
  return std::move(f_);
}

ValueId Lowering::tensor_value(DType dt, MemKind mem, int rank, const std::string& name) {
  ValueInfo vi;
  vi.type = Type::Tensor;
  vi.name = name;
  vi.dtype = dt;
  vi.mem = mem;
  vi.rank = rank;
  return f_.add_value(vi);
}

Op& Lowering::emit(OpKind k, ValueId result, bool with_origin) {
  Op op;
  op.kind = k;
  op.result = result;
  op.loc = loc_;
  if (with_origin) op.origin = origin_;
  cur_->ops.push_back(std::move(op));
  return cur_->ops.back();
}

ValueId Lowering::constant(int64_t v, Scope& sc) {
  auto it = sc.consts.find(v);
  if (it != sc.consts.end()) return it->second;
  ValueId r = f_.add_value(ValueInfo{Type::Index, v >= 0 ? "c" + std::to_string(v) : "cm" + std::to_string(-v)});
  emit(OpKind::Const, r, false).ival = v;
  sc.consts[v] = r;
  return r;
}

ValueId Lowering::arith(const std::string& name, ValueId a, ValueId b, const std::string& hint) {
  ValueId r = f_.add_value(ValueInfo{Type::Index, hint});
  Op& op = emit(OpKind::Arith, r, false);
  op.name = name;
  op.operands = {a, b};
  return r;
}

ValueId Lowering::dim(ValueId t, int d, const std::string& hint) {
  ValueId r = f_.add_value(ValueInfo{Type::Index, hint});
  Op& op = emit(OpKind::Dim, r, false);
  op.operands = {t};
  op.ival = d;
  return r;
}

// One event for a set: itself, or a join (an empty join completes at once).
EventRef Lowering::one_event(const Events& es) {
  if (es.size() == 1) return es[0];
  ValueId r = event_value();
  emit(OpKind::Join, r, true).after = es;
  return EventRef{r, {}};
}

const Instance* Lowering::dispatch(const Stmt& s) const {
  for (const Dispatch& d : fr_->inst->calls)
    if (!s.label.name.empty() && d.key.name == s.label.name) return instances_.at(d.instance.name);
  for (const Dispatch& d : fr_->inst->calls)
    if (d.key.name == s.target.name) return instances_.at(d.instance.name);
  return nullptr;
}

ValueId Lowering::copy(ValueId src, ValueId dst, const Events& after) {
  ValueId e = event_value();
  Op& op = emit(OpKind::Copy, e, true);
  op.operands = {src, dst};
  op.after = after;
  return e;
}

void Lowering::launch(const Stmt& s, Scope& sc) {
  loc_ = s.loc;
  origin_ = fr_->node->instance + ": " + stmt_text(s);
  LOOM_ASSERT(fr_->next_child < fr_->node->children.size(), "launch " << stmt_text(s) << " has no tree node");
  int cid = fr_->node->children[fr_->next_child++];
  const TreeNode& cn = t_.nodes[static_cast<size_t>(cid)];
  const Instance* want = dispatch(s);
  LOOM_ASSERT(want && want->name.name == cn.instance,
              "launch " << stmt_text(s) << " dispatches to " << (want ? want->name.name : "nothing") << ", tree has "
                        << cn.instance);
  const TaskDecl* ct = p_.find_task(cn.task);
  LOOM_ASSERT(ct && ct->params.size() == s.args.size() && cn.args.size() == s.args.size(), "launch arity");
  size_t n = s.args.size();
  std::vector<TensorVal> args(n);
  std::vector<std::optional<Op>> cut(n);  // the `piece` op an argument was cut with, if any
  std::vector<ValueId> params(n, kNone);
  std::vector<Events> init(n);
  // (1) fresh allocations in the callee's memories.
  for (size_t i = 0; i < n; ++i) {
    const Param& prm = ct->params[i];
    if (!prm.is_tensor) {
      params[i] = scalar(s.args[i], sc);
      continue;
    }
    args[i] = tensor(s.args[i], sc, "");
    if (!cur_->ops.empty() && cur_->ops.back().kind == OpKind::Piece && cur_->ops.back().result == args[i].value)
      cut[i] = cur_->ops.back();
    std::vector<ValueId> ext;
    for (size_t d = 0; d < prm.dims.size(); ++d) ext.push_back(dim(args[i].value, static_cast<int>(d), prm.dims[d].name));
    const TreeArg& ta = cn.args[i];
    params[i] = tensor_value(ta.dtype, ta.mem, static_cast<int>(prm.dims.size()), ta.name);
    Op& op = emit(OpKind::Alloc, params[i], true);
    op.name = cn.instance;  // the instance that maps this argument to ta.mem (diagnostics)
    op.mem = ta.mem;
    op.dtype = ta.dtype;
    op.operands = ext;
    op.layout = tile_layout(cn.instance, prm.name.name);
    op.holds = args[i].value;  // the callee's copy of the argument piece (mask_above's coordinates)
  }
  // (2) copy-ins after the last write of each read argument. A red(sum|max) argument is not
  //     copied in: its allocation starts at the reduction's identity and its copy-out folds it in.
  for (size_t i = 0; i < n; ++i) {
    Privilege priv = ct->params[i].priv;
    if (!ct->params[i].is_tensor || !reads(priv)) continue;
    if (is_reduce(priv)) {
      ValueId id = f_.add_value(ValueInfo{Type::Float, ""});
      emit(OpKind::FConst, id, false).fval =
          priv == Privilege::ReduceSum ? 0.0 : -std::numeric_limits<double>::infinity();
      init[i] = {EventRef{call("fill", {params[i], id}, {}), {}}};
      continue;
    }
    RootState& st = fr_->roots[static_cast<size_t>(args[i].root)];
    // A replicated row piece of a source the enclosing prange writes, not yet written in this
    // iteration: copy in the lane's piece of the snapshot taken before the pfor (whose
    // preconditions cover the snapshot copy) instead of the shared entries other lanes write.
    ValueId from = args[i].value;
    if (cut[i] && st.writer.empty()) {
      auto sn = sc.snapshots.find(cut[i]->operands[0]);
      if (sn != sc.snapshots.end() && overlapping(PartVal{cut[i]->operands[0], args[i].root, cut[i]->part})) {
        const ValueInfo vi = info(args[i].value), snap = info(sn->second);
        from = tensor_value(vi.dtype, snap.mem, vi.rank, snap.name);
        Op& op = emit(OpKind::Piece, from, false);
        op.operands = cut[i]->operands;
        op.operands[0] = sn->second;
        op.part = cut[i]->part;
      }
    }
    // A written argument's copy-in also waits for the reads since (anti dependence): copy
    // elimination may let the callee write the caller's tensor in place.
    Events pre = st.writer;
    if (writes(priv)) add_events(pre, st.readers);
    ValueId e = copy(from, params[i], pre);
    add_event(st.readers, EventRef{e, {}});
    init[i] = {EventRef{e, {}}};
  }
  // A write-only (w) argument has no copy-in; the callee's first writes wait for the caller root's
  // last write and reads since, so that writing the caller's tensor in place stays ordered.
  for (size_t i = 0; i < n; ++i) {
    Privilege priv = ct->params[i].priv;
    if (!ct->params[i].is_tensor || reads(priv) || !writes(priv)) continue;
    const RootState& st = fr_->roots[static_cast<size_t>(args[i].root)];
    add_events(init[i], st.writer);
    add_events(init[i], st.readers);
  }
  // (3) the callee.
  NodeResult r = lower_node(cid, params, init);
  loc_ = s.loc;
  origin_ = fr_->node->instance + ": " + stmt_text(s);
  // A read-only argument stays read until the callee's last read of it (not only at its copy-in):
  // copy elimination may let the callee read the caller's tensor in place.
  for (size_t i = 0; i < n; ++i) {
    if (!ct->params[i].is_tensor || writes(ct->params[i].priv)) continue;
    add_events(fr_->roots[static_cast<size_t>(args[i].root)].readers, r.params[i].readers);
  }
  // (4) copy-outs after the callee's last write and its reads since, and the caller root's last
  //     write and reads.
  for (size_t i = 0; i < n; ++i) {
    if (!ct->params[i].is_tensor || !writes(ct->params[i].priv)) continue;
    RootState& st = fr_->roots[static_cast<size_t>(args[i].root)];
    Events after = r.params[i].writer;
    add_events(after, r.params[i].readers);
    add_events(after, st.writer);
    add_events(after, st.readers);
    ValueId e = copy(params[i], args[i].value, after);
    if (is_reduce(ct->params[i].priv)) cur_->ops.back().name = ct->params[i].priv == Privilege::ReduceSum ? "sum" : "max";
    st.writer = {EventRef{e, {}}};
    st.readers.clear();
  }
}

void Lowering::leaf_call(const Stmt& s, Scope& sc) {
  loc_ = s.loc;
  origin_ = fr_->node->instance + ": " + stmt_text(s);
  const LeafOp* lop = find_leaf_op(s.target.name);
  LOOM_ASSERT(lop && lop->args.size() == s.args.size(), "leaf op " << s.target.name);
  std::vector<ValueId> operands;
  std::vector<std::pair<int, Access>> uses;
  for (size_t i = 0; i < s.args.size(); ++i) {
    if (lop->args[i].kind == OpArgKind::Scalar) {
      if (is_number_literal(s.args[i])) {
        ValueId v = f_.add_value(ValueInfo{Type::Float, ""});
        emit(OpKind::FConst, v, false).fval = number_value(s.args[i]);
        operands.push_back(v);
      } else {
        operands.push_back(scalar(s.args[i], sc));
      }
      continue;
    }
    TensorVal t = tensor(s.args[i], sc, "");
    operands.push_back(t.value);
    uses.push_back({t.root, lop->args[i].access});
  }
  std::vector<std::pair<int, bool>> rw;  // (root, writes)
  for (const auto& [root, acc] : uses) rw.push_back({root, acc != Access::Read});
  call(s.target.name, operands, rw, fr_->task ? leaf_broadcast_dim(*fr_->task, s) : 0);
}

// A `call` ordered by the accesses `rw` (root, writes) of its tensor operands.
ValueId Lowering::call(const std::string& name, const std::vector<ValueId>& operands, const std::vector<std::pair<int, bool>>& rw,
                       int broadcast_dim) {
  Events after;
  for (const auto& [root, w] : rw) {
    const RootState& st = fr_->roots[static_cast<size_t>(root)];
    add_events(after, st.writer);
    if (w) add_events(after, st.readers);
  }
  ValueId e = event_value();
  Op& op = emit(OpKind::Call, e, true);
  op.name = name;
  op.operands = operands;
  op.broadcast_dim = broadcast_dim;
  op.after = after;
  for (const auto& [root, w] : rw)
    if (!w) add_event(fr_->roots[static_cast<size_t>(root)].readers, EventRef{e, {}});
  for (const auto& [root, w] : rw)
    if (w) fr_->roots[static_cast<size_t>(root)] = RootState{fr_->roots[static_cast<size_t>(root)].name, {EventRef{e, {}}}, {}};
  return e;
}

void Lowering::lower_stmts(const std::vector<Stmt>& body, Scope& sc) {
  for (const Stmt& s : body) {
    loc_ = s.loc;
    origin_ = fr_->node->instance + ": " + stmt_text(s);
    switch (s.kind) {
      case StmtKind::Bind: bind(s, sc); break;
      case StmtKind::Loop: loop(s, sc); break;
      case StmtKind::Call:
        if (fr_->node->leaf) leaf_call(s, sc);
        else launch(s, sc);
        break;
    }
  }
}

// Lowers tree node `id` with `params` as its parameters; `init[i]` is the pending write of
// tensor parameter i (its copy-in).
Lowering::NodeResult Lowering::lower_node(int id, const std::vector<ValueId>& params, const std::vector<Events>& init) {
  Frame fr;
  fr.node = &t_.nodes[static_cast<size_t>(id)];
  auto inst = instances_.find(fr.node->instance);
  LOOM_ASSERT(inst != instances_.end(), "unknown instance " << fr.node->instance);
  fr.inst = inst->second;
  fr.var = p_.find_variant(fr.node->variant);
  fr.task = p_.find_task(fr.node->task);
  LOOM_ASSERT(fr.var && fr.task && fr.task->params.size() == params.size(), "variant " << fr.node->variant);
  for (const auto& [k, v] : fr.node->tunables) fr.tunables[k] = v;
  Frame* caller = fr_;
  fr_ = &fr;
  // The thread block's shared-memory budget (ir.h, SHARED MEMORY; used by resource allocation):
  // smem(...) of the BLOCK instance a non-BLOCK variant launches (the kernel's), else the
  // machine's per-block maximum. Should two kernels differ, the smaller budget applies to both.
  if (fr.node->proc == ProcKind::Block && (!caller || caller->node->proc != ProcKind::Block)) {
    const Instance& in = *fr.inst;
    const int64_t max = t_.machine->limits.smem_per_block, bytes = in.smem_bytes.value_or(max);
    if (f_.smem.bytes == 0 || bytes < f_.smem.bytes)
      f_.smem = {bytes, max, in.name.name, in.smem_bytes ? "smem(" + in.smem_spelling + ")" : "",
                 in.smem_bytes ? in.smem_loc : in.name.loc};
  }

  Scope sc;
  std::vector<int> param_root(params.size(), -1);
  for (size_t i = 0; i < params.size(); ++i) {
    const Param& prm = fr.task->params[i];
    const std::string& name = fr.node->args[i].name;
    if (!prm.is_tensor) {
      sc.scalars[name] = params[i];
      continue;
    }
    param_root[i] = static_cast<int>(fr.roots.size());
    fr.roots.push_back(RootState{name, init[i], {}});
    sc.tensors[name] = TensorVal{params[i], param_root[i]};
    for (size_t d = 0; d < prm.dims.size(); ++d)
      fr.dims.emplace(prm.dims[d].name, std::make_pair(params[i], static_cast<int>(d)));
  }

  if (fr.node->leaf && fr.var->is_extern) {
    loc_ = fr.var->extern_loc;
    origin_ = fr.node->instance + ": extern " + fr.var->name.name;
    std::vector<std::pair<int, bool>> rw;
    for (size_t i = 0; i < params.size(); ++i)
      if (param_root[i] >= 0) {
        // A parameter the task only writes is still waited for like a write.
        rw.push_back({param_root[i], writes(fr.task->params[i].priv)});
      }
    call("extern:" + fr.var->name.name, params, rw);
  } else {
    // A `w` parameter the body reduces into starts at the reduction's identity (the launches'
    // reducing copies then combine into a defined value; the old contents are still not read).
    const std::map<std::string, Privilege> reduced =
        fr.node->leaf ? std::map<std::string, Privilege>{} : reduced_tensors(p_, *fr.var);
    for (size_t i = 0; i < params.size(); ++i) {
      if (param_root[i] < 0 || fr.task->params[i].priv != Privilege::Write) continue;
      auto red = reduced.find(fr.node->args[i].name);
      if (red == reduced.end()) continue;
      loc_ = fr.var->name.loc;
      origin_ = fr.node->instance + ": " + fr.node->args[i].name + " starts at the identity of its reduction";
      ValueId id = f_.add_value(ValueInfo{Type::Float, ""});
      emit(OpKind::FConst, id, false).fval =
          red->second == Privilege::ReduceSum ? 0.0 : -std::numeric_limits<double>::infinity();
      call("fill", {params[i], id}, {{param_root[i], true}});
    }
    lower_stmts(fr.var->body, sc);
  }
  LOOM_ASSERT(fr.next_child == fr.node->children.size(),
              "instance " << fr.node->instance << ": " << fr.node->children.size() - fr.next_child << " launch(es) not lowered");

  NodeResult r;
  r.params.resize(params.size());
  for (size_t i = 0; i < params.size(); ++i)
    if (param_root[i] >= 0) r.params[i] = fr.roots[static_cast<size_t>(param_root[i])];
  for (const RootState& st : fr.roots) {
    add_events(r.completion, st.writer);
    add_events(r.completion, st.readers);
  }
  fr_ = caller;
  return r;
}

// The `layout(ARG: ...)` clause of `instance` for its parameter `arg` (checked by the front end).
ir::TileLayout Lowering::tile_layout(const std::string& instance, const std::string& arg) const {
  ir::TileLayout l;
  auto it = instances_.find(instance);
  if (it == instances_.end()) return l;
  for (const LayoutSpec& ls : it->second->layouts) {
    if (ls.arg.name != arg) continue;
    l.given = true;
    for (const Ident& a : ls.attrs) {
      if (a.name == "col_major") l.col_major = true;
      else if (a.name == "swizzle32") l.swizzle = 32;
      else if (a.name == "swizzle64") l.swizzle = 64;
      else if (a.name == "swizzle128") l.swizzle = 128;
    }
  }
  return l;
}

}  // namespace dependence_analysis_detail

ir::Function dependence_analysis(const Program& p, const TaskTree& tree) {
  return dependence_analysis_detail::Lowering(p, tree).run();
}

}  // namespace loom
