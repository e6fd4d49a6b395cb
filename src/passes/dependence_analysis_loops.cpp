// Dependence analysis: loops — srange to nested `for`s (carried events, pipeline / warpspecialize on
// the innermost), prange to nested `pfor`s (event arrays, broadcasts after the loop); which outer
// roots a body touches (scanned before lowering it: the loop's preconditions and carried states
// need them); the snapshots of replicated row pieces a prange body reads (dependence_analysis.h).
// The rules: dependence_analysis.cpp; the class: dependence_analysis_internal.h.
#include "passes/dependence_analysis_internal.h"

namespace loom::dependence_analysis_detail {

namespace {

bool holds_for(const Block& b) {
  for (const Op& op : b.ops)
    if (op.kind == OpKind::For || std::any_of(op.regions.begin(), op.regions.end(), holds_for)) return true;
  return false;
}

const Stmt* first_launch(const std::vector<Stmt>& body) {
  for (const Stmt& s : body) {
    if (s.kind == StmtKind::Call) return &s;
    if (s.kind == StmtKind::Loop)
      if (const Stmt* c = first_launch(s.body)) return c;
  }
  return nullptr;
}

}  // namespace

int Lowering::root_of(const Expr& e, const Scope& sc, const std::map<std::string, int>& local) const {
  const std::string* name = nullptr;
  if (e.kind == ExprKind::Name) name = &e.name;
  else if (e.kind == ExprKind::Index && e.args[0].kind == ExprKind::Name) name = &e.args[0].name;
  if (!name) return -1;
  if (auto it = local.find(*name); it != local.end()) return it->second;
  if (auto it = sc.tensors.find(*name); it != sc.tensors.end()) return it->second.root;
  if (auto it = sc.parts.find(*name); it != sc.parts.end()) return it->second.root;
  return -1;
}

void Lowering::scan(const std::vector<Stmt>& body, const Scope& sc, std::map<std::string, int>& local,
          std::map<int, Touch>& out) const {
  for (const Stmt& s : body) {
    switch (s.kind) {
      case StmtKind::Bind: {
        const Expr& v = s.value;
        if (v.kind == ExprKind::Call && v.name == "tensor") local[s.target.name] = -1;  // body-local
        else if (is_partition_call(v)) local[s.target.name] = root_of(v.args[0], sc, local);
        else if (v.kind == ExprKind::Index || (v.kind == ExprKind::Name && root_of(v, sc, local) >= 0))
          local[s.target.name] = root_of(v, sc, local);
        break;
      }
      case StmtKind::Loop: scan(s.body, sc, local, out); break;
      case StmtKind::Call: {
        const TaskDecl* t = p_.find_task(s.target.name);
        LOOM_ASSERT(t, "launch of unknown task " << s.target.name);
        for (size_t i = 0; i < t->params.size() && i < s.args.size(); ++i) {
          if (!t->params[i].is_tensor) continue;
          int r = root_of(s.args[i], sc, local);
          if (r < 0) continue;
          out[r].read |= reads(t->params[i].priv);
          out[r].write |= writes(t->params[i].priv);
        }
        break;
      }
    }
  }
}

Events Lowering::preconditions(const std::map<int, Touch>& touched) const {
  Events es;
  for (const auto& [r, t] : touched) {
    add_events(es, fr_->roots[static_cast<size_t>(r)].writer);
    if (t.write) add_events(es, fr_->roots[static_cast<size_t>(r)].readers);
  }
  return es;
}

// The completion of one iteration: the states of the touched roots and of the roots created in
// the body (ids from `first_local`), without `skip` (the carried event).
EventRef Lowering::completion(const std::map<int, Touch>& touched, size_t first_local, ValueId skip) {
  Events es;
  auto take = [&](const RootState& st) {
    for (const Events* l : {&st.writer, &st.readers})
      for (const EventRef& e : *l)
        if (e.value != skip) add_event(es, e);
  };
  for (const auto& [r, t] : touched) take(fr_->roots[static_cast<size_t>(r)]);
  for (size_t r = first_local; r < fr_->roots.size(); ++r) take(fr_->roots[r]);
  return one_event(es);
}

void Lowering::loop(const Stmt& s, Scope& sc) {
  std::string text = fr_->node->instance + ": " + stmt_text(s);
  std::vector<ValueId> trips;
  loc_ = s.loc;
  origin_ = text;
  for (const Expr& x : s.extents) trips.push_back(index(x, sc));
  std::map<std::string, int> local;
  std::map<int, Touch> touched;
  scan(s.body, sc, local, touched);
  ProcKind proc = fr_->node->proc;
  if (s.parallel && first_launch(s.body)) {
    LOOM_ASSERT(fr_->next_child < fr_->node->children.size(), "prange without its tree node");
    proc = t_.nodes[static_cast<size_t>(fr_->node->children[fr_->next_child])].proc;
  }
  // Snapshots belong to the statements of one prange body: a nested loop starts without them.
  Scope here = sc;
  here.snapshots.clear();
  if (s.parallel) snapshot_shared_rows(s, here, touched, text);
  loop_level(s, 0, trips, touched, here, proc, text);
}

// Pieces of an mma partition (role acc) of a rank-1 tensor held by a WARP are shared by the 4 lanes of a quad
// (docs/language.md section 5): replicated row pieces, the only overlapping pieces a prange may
// write through (besides red). The reference interpreter (src/exec/reference.h) decides the same way.
bool Lowering::overlapping(const PartVal& pv) const {
  return pv.spec.kind == PartitionSpec::Kind::Mma && pv.spec.role == MmaRole::Acc && pv.spec.holder == ProcKind::Warp &&
         info(pv.src).rank == 1;
}

// Before the pfor of prange `s`: one snapshot per source of an overlapping partition that a launch
// directly in the body reads (r, rw) through a piece and that the loop writes (see the header).
// The snapshot copy is a read of the source's root: after its last write, and a reader of it, so
// the pfor (which writes the root) waits for it.
void Lowering::snapshot_shared_rows(const Stmt& s, Scope& sc, const std::map<int, Touch>& touched, const std::string& text) {
  if (fr_->node->leaf) return;
  std::map<std::string, bool> rebound;  // names bound in the body before a launch shadow the outer ones
  for (const Stmt& st : s.body) {
    if (st.kind == StmtKind::Bind) rebound[st.target.name] = true;
    if (st.kind != StmtKind::Call) continue;
    const TaskDecl* t = p_.find_task(st.target.name);
    LOOM_ASSERT(t && t->params.size() == st.args.size(), "launch of " << st.target.name);
    for (size_t i = 0; i < t->params.size(); ++i) {
      const Param& prm = t->params[i];
      if (!prm.is_tensor || !reads(prm.priv) || is_reduce(prm.priv)) continue;
      const Expr& a = st.args[i];
      if (a.kind != ExprKind::Index || a.args[0].kind != ExprKind::Name || rebound.count(a.args[0].name)) continue;
      auto it = sc.parts.find(a.args[0].name);
      if (it == sc.parts.end() || !overlapping(it->second)) continue;
      const PartVal& pv = it->second;
      auto tw = touched.find(pv.root);
      if (tw == touched.end() || !tw->second.write || sc.snapshots.count(pv.src)) continue;
      const ValueInfo src = info(pv.src);
      loc_ = s.loc;
      origin_ = text + " (snapshot of " + src.name + ")";
      std::vector<ValueId> ext;
      for (int d = 0; d < src.rank; ++d) ext.push_back(dim(pv.src, d, ""));
      ValueId snap = tensor_value(src.dtype, src.mem, src.rank, src.name + "_snap");
      Op& op = emit(OpKind::Alloc, snap, true);
      op.distinct = true;  // copy elimination must not fold it back into the tensor being written
      op.mem = src.mem;
      op.dtype = src.dtype;
      op.operands = ext;
      RootState& rs = fr_->roots[static_cast<size_t>(pv.root)];
      ValueId e = copy(pv.src, snap, rs.writer);
      add_event(rs.readers, EventRef{e, {}});
      sc.snapshots[pv.src] = snap;
    }
  }
  loc_ = s.loc;
  origin_ = text;
}

void Lowering::loop_level(const Stmt& s, size_t level, const std::vector<ValueId>& trips, const std::map<int, Touch>& touched,
                const Scope& sc, ProcKind proc, const std::string& text) {
  loc_ = s.loc;
  origin_ = text;
  Events pre = preconditions(touched);
  Block body;
  ValueId var = f_.add_value(ValueInfo{Type::Index, s.vars[level].name});
  ValueId carried = kNone;
  body.args.push_back(var);
  if (!s.parallel) {
    carried = event_value("c");
    body.args.push_back(carried);
  }
  // States inside the body.
  std::map<int, RootState> saved;
  for (const auto& [r, t] : touched) {
    RootState& st = fr_->roots[static_cast<size_t>(r)];
    saved[r] = st;
    st.writer.clear();
    st.readers.clear();
    if (!s.parallel && t.write) st.writer = {EventRef{carried, {}}};
  }
  size_t first_local = fr_->roots.size();
  Scope inner = sc;
  inner.scalars[s.vars[level].name] = var;
  Block* outer = cur_;
  cur_ = &body;
  if (level + 1 < s.vars.size()) loop_level(s, level + 1, trips, touched, inner, proc, text);
  else lower_stmts(s.body, inner);
  loc_ = s.loc;
  origin_ = text;
  body.yield = completion(touched, first_local, carried);
  fr_->roots.resize(first_local);  // the body's locals are out of scope (only `inner` named them)
  cur_ = outer;

  ValueId result;
  EventRef done;
  if (s.parallel) {
    ValueInfo vi{Type::Events, "E"};
    vi.event_dims = {proc};
    result = f_.add_value(vi);
    done = EventRef{result, {kNone}};
  } else {
    result = event_value();
    done = EventRef{result, {}};
  }
  Op& op = emit(s.parallel ? OpKind::PFor : OpKind::For, result, true);
  op.proc = proc;
  op.operands = {trips[level]};
  op.after = pre;
  op.regions.push_back(std::move(body));
  // The instance's pipeline(D) / warpspecialize go on the innermost loops of its sranges
  // (src/passes/warp_specialize.h); unset, a loop is neither pipelined nor warp-specialized.
  if (!s.parallel && !holds_for(op.regions[0])) {
    op.pipeline_depth = fr_->inst->pipeline.value_or(1);
    op.warp_specialize = fr_->inst->warp_specialize.value_or(false);
    op.pingpong = fr_->inst->pingpong;
    op.pingpong_double_buffer = fr_->inst->pingpong && fr_->inst->pingpong_double_buffer;
    op.split_k = fr_->inst->splitk.value_or(1);
    op.stream_k = fr_->inst->streamk;
    op.multicast = fr_->inst->multicast.value_or(1);
    op.multicast_n = fr_->inst->multicast_n.value_or(1);
    op.alternate = fr_->inst->alternate.value_or(1);
    op.k_teams = fr_->inst->kteams.value_or(1);
    if (fr_->inst->regs) {
      op.dma_regs = fr_->inst->regs->first;
      op.compute_regs = fr_->inst->regs->second;
      op.regs_loc = fr_->inst->regs_loc;
    }
  }
  // States after the loop.
  for (const auto& [r, t] : touched) {
    RootState& st = fr_->roots[static_cast<size_t>(r)];
    st = saved[r];
    if (t.write) {
      st.writer = {done};
      st.readers.clear();
    } else {
      add_event(st.readers, done);
    }
  }
}

}  // namespace loom::dependence_analysis_detail
