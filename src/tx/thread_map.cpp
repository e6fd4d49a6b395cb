// The thread-mapping pass. See thread_map.h.
#include "tx/thread_map.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "tx/lane_stride.h"
#include "tx/mapping_ilp.h"

namespace loom::tx {
namespace {

int elem_bytes(DType t) { return t == DType::F32 ? 4 : 2; }

// A refusal: the located error the user sees.
struct Refusal {
  SourceLoc loc;
  std::string message;
  std::string hint;
};

class Mapper {
 public:
  Mapper(const Model& m, const PolyModel& poly) : m_(m), poly_(poly) {}

  // Builds the kernel of the top-level loop `top` (a Model::loops index) with its assignments.
  SimtMapping map(int top, const std::vector<int>& assigns, const std::string& name) {
    SimtMapping out;
    SimtKernel& k = out.kernel;
    k.name = name;
    const Stmt& loop = *m_.loops[static_cast<size_t>(top)].stmt;
    k.loc = loop.loc;
    if (!loop.par)
      throw Refusal{loop.loc, "a SIMT kernel's outermost loop must be `par`: this `seq` loop '" + loop.var + "' would run on one thread",
                    "write the independent dimension as the outer `par` loop"};
    // A perfect nest of par loops around assignments is a Map; a par loop around scalars,
    // row-level assignments and one-statement inner loops is Rows.
    std::vector<int> nest{top};
    const Stmt* body = &loop;
    while (body->body.size() == 1 && body->body[0].kind == Stmt::Kind::Loop && body->body[0].par) {
      body = &body->body[0];
      nest.push_back(loop_index(body));
    }
    const bool only_assigns = std::all_of(body->body.begin(), body->body.end(), [](const Stmt& s) { return s.kind == Stmt::Kind::Assign; });
    if (only_assigns && (nest.size() > 1 || !has_inner_loops(loop))) {
      k.shape = SimtKernel::Shape::Map;
      k.nest = nest;
      for (int a : assigns) add_map_stmt(k, a);
      params(k, assigns);
      map_candidates(out);
    } else {
      k.shape = SimtKernel::Shape::Rows;
      k.rows_loop = top;
      rows_body(k, loop);
      params(k, assigns);
      rows_candidates(out);
    }
    return out;
  }

 private:
  const Model& m_;
  const PolyModel& poly_;

  int loop_index(const Stmt* s) const {
    for (size_t l = 0; l < m_.loops.size(); ++l)
      if (m_.loops[l].stmt == s) return static_cast<int>(l);
    LOOM_INTERNAL("a loop statement without a model entry");
  }
  int assign_index(const Stmt* s) const {
    for (size_t a = 0; a < m_.assigns.size(); ++a)
      if (m_.assigns[a].stmt == s) return static_cast<int>(a);
    LOOM_INTERNAL("an assignment without a model entry");
  }
  static bool has_inner_loops(const Stmt& loop) {
    return std::any_of(loop.body.begin(), loop.body.end(), [](const Stmt& s) { return s.kind != Stmt::Kind::Assign; });
  }
  bool is_global(int t) const { return m_.tensors[static_cast<size_t>(t)].role != Role::New; }
  const std::string& tname(int t) const { return m_.tensors[static_cast<size_t>(t)].name; }

  // Every tensor a statement reads that some statement of the kernel writes must be a scalar.
  void check_reads(const SimtKernel& k, int a, const std::vector<int>& scalars) const {
    for (const Expr* r : m_.assigns[static_cast<size_t>(a)].reads) {
      const int t = m_.tensor_of.at(r);
      if (std::find(scalars.begin(), scalars.end(), t) != scalars.end()) continue;
      if (m_.tensors[static_cast<size_t>(t)].role == Role::Out)
        throw Refusal{r->loc, "a SIMT kernel reads the output '" + tname(t) + "' it may be writing: " + print_expr(*r),
                      "compute the value into a per-row `new` scalar, or split the program into two kernels"};
      if (m_.tensors[static_cast<size_t>(t)].role == Role::New)
        throw Refusal{r->loc, "'" + tname(t) + "' is a `new` buffer that is not a per-row scalar (`new s: f32[1]` inside the row loop); SIMT kernels keep only those, in registers",
                      "make the intermediate an `out` tensor and compute it in a kernel of its own"};
    }
    (void)k;
  }

  void add_map_stmt(SimtKernel& k, int a) {
    const AssignInfo& info = m_.assigns[static_cast<size_t>(a)];
    const Stmt& s = *info.stmt;
    if (!is_global(info.target))
      throw Refusal{s.lhs.loc, "a SIMT kernel writes only `out` tensors; '" + tname(info.target) + "' is a `new` buffer",
                    "make it an `out` tensor"};
    if (s.accumulate)
      throw Refusal{s.loc, "`+=` outside a reduction: a pointwise SIMT statement assigns each element once", "write `=`"};
    check_reads(k, a, {});
    SimtStmt st;
    st.kind = SimtStmt::Kind::Assign;
    st.src = &s;
    st.assign = a;
    st.target = info.target;
    st.value = &s.rhs;
    k.stmts.push_back(st);
  }

  static bool is_scalar_access(const Expr& e, int t, const Model& m) {
    return e.kind == Expr::Kind::Access && m.tensor_of.count(&e) && m.tensor_of.at(&e) == t;
  }

  // The reduction `s[0] += e` or `s[0] = max(s[0], e)` (max/min, either order) into scalar t.
  bool reduction_form(const Stmt& s, int t, Combine& op, const Expr*& term) const {
    if (s.accumulate) {
      op = Combine::Sum;
      term = &s.rhs;
      return true;
    }
    const Expr& r = s.rhs;
    if (r.kind != Expr::Kind::Call || (r.name != "max" && r.name != "min") || r.args.size() != 2) return false;
    op = r.name == "max" ? Combine::Max : Combine::Min;
    if (is_scalar_access(r.args[0], t, m_)) term = &r.args[1];
    else if (is_scalar_access(r.args[1], t, m_)) term = &r.args[0];
    else return false;
    return true;
  }

  bool reads_tensor(const Expr& e, int t) const {
    if (e.kind == Expr::Kind::Access && m_.tensor_of.count(&e) && m_.tensor_of.at(&e) == t) return true;
    for (const Expr& a : e.args)
      if (reads_tensor(a, t)) return true;
    return false;
  }

  void rows_body(SimtKernel& k, const Stmt& loop) {
    // Per-row scalars first: every `new` in the row loop must be one element.
    for (const Stmt& s : loop.body) {
      if (s.kind != Stmt::Kind::Decl) continue;
      for (const Expr& e : s.extents)
        if (constant_value(e) != 1)
          throw Refusal{s.loc, "the `new` buffer '" + s.name + "' is not a per-row scalar: SIMT kernels keep only one-element buffers (`new s: f32[1]`) in the row loop",
                        "a whole-row buffer would need shared memory, which SIMT row kernels do not stage"};
      if (s.dtype != DType::F32)
        throw Refusal{s.loc, "the row scalar '" + s.name + "' is " + dtype_name(s.dtype) + ": SIMT kernels keep row scalars in f32 registers",
                      "declare it `f32[1]`"};
      k.scalars.push_back(m_.find_tensor(s.name));
    }
    for (const Stmt& s : loop.body) {
      if (s.kind == Stmt::Kind::Decl) continue;
      if (s.kind == Stmt::Kind::Assign) {
        row_stmt(k, s, -1);
        continue;
      }
      if (s.body.size() != 1 || s.body[0].kind != Stmt::Kind::Assign)
        throw Refusal{s.loc, "an inner loop of a SIMT row kernel holds exactly one assignment; loop '" + s.var + "' holds " +
                                 std::to_string(s.body.size()) + " item(s) or a nested loop",
                      "split it into one loop per statement"};
      row_stmt(k, s.body[0], loop_index(&s));
      if (!k.row_length) k.row_length = &s.extent;
    }
    if (!k.row_length)
      throw Refusal{loop.loc, "this `par` loop holds scalars but no inner loop over a row: there is nothing to map onto lanes",
                    "a pointwise statement needs no `new` scalars"};
  }

  void row_stmt(SimtKernel& k, const Stmt& s, int inner) {
    const int a = assign_index(&s);
    const int t = m_.assigns[static_cast<size_t>(a)].target;
    const bool scalar = std::find(k.scalars.begin(), k.scalars.end(), t) != k.scalars.end();
    SimtStmt st;
    st.src = &s;
    st.assign = a;
    st.loop = inner;
    st.target = t;
    st.value = &s.rhs;
    if (inner >= 0 && scalar) {
      st.kind = SimtStmt::Kind::Reduce;
      if (!reduction_form(s, t, st.op, st.value))
        throw Refusal{s.loc, "the row scalar '" + tname(t) + "' is written in loop '" + m_.loop_var(inner) +
                                 "' by something that is not a reduction: " + print_expr(s.lhs) + (s.accumulate ? " += " : " = ") + print_expr(s.rhs),
                      "a reduction is `s[0] += e`, `s[0] = max(s[0], e)` or `s[0] = min(s[0], e)`"};
      if (reads_tensor(*st.value, t))
        throw Refusal{st.value->loc, "the reduced term reads the scalar '" + tname(t) + "' it reduces into", "a reduction's term cannot depend on the running value"};
    } else if (inner >= 0) {
      if (!is_global(t) || m_.tensors[static_cast<size_t>(t)].role != Role::Out)
        throw Refusal{s.lhs.loc, "a SIMT row kernel's inner loops write `out` tensors or reduce into row scalars; '" + tname(t) + "' is neither", ""};
      if (s.accumulate) throw Refusal{s.loc, "`+=` into an output outside a reduction: each element is assigned once", "write `=`"};
      for (const TxAccess& acc : poly_.accesses)
        if (acc.assign == a && acc.write) {
          LaneDelta d = lane_delta(m_, acc, inner);
          if (!d.regular || std::all_of(d.delta.begin(), d.delta.end(), [](int64_t v) { return v == 0; }))
            throw Refusal{s.lhs.loc, "the loop '" + m_.loop_var(inner) + "' does not write a different element of '" + tname(t) +
                                         "' in each iteration, so its columns cannot run on different threads",
                          "index the output by the loop variable"};
        }
    } else if (!scalar) {
      if (m_.tensors[static_cast<size_t>(t)].role != Role::Out)
        throw Refusal{s.lhs.loc, "'" + tname(t) + "' is not a row scalar or an `out` tensor", ""};
      if (s.accumulate) throw Refusal{s.loc, "`+=` into an output outside a reduction: each element is assigned once", "write `=`"};
    }
    check_reads(k, a, k.scalars);
    if (inner >= 0) invariants(*st.value, inner, st.invariants);
    if (inner >= 0) invariant_divisions(*st.value, inner, st.divisions);
    k.stmts.push_back(st);
  }

  // Whether `e` depends on the inner loop `inner` (its variable, or an access indexed by it).
  bool column_dependent(const Expr& e, int inner) const {
    if (e.kind == Expr::Kind::Name && m_.loop_of.count(&e) && m_.loop_of.at(&e) == inner) return true;
    return std::any_of(e.args.begin(), e.args.end(), [&](const Expr& a) { return column_dependent(a, inner); });
  }
  // The largest column-independent subexpressions of `e` worth computing once per row (an
  // operation, not a leaf).
  void invariants(const Expr& e, int inner, std::vector<const Expr*>& out) const {
    const bool op = e.kind == Expr::Kind::Call || e.kind == Expr::Kind::Binary || e.kind == Expr::Kind::Neg;
    if (op && !column_dependent(e, inner)) {
      out.push_back(&e);
      return;
    }
    if (e.kind == Expr::Kind::Access) return;  // indices are integers, not values
    for (const Expr& a : e.args) invariants(a, inner, out);
  }

  // The divisions of `e` by a column-independent divisor whose dividend depends on the column (a
  // division with both sides independent is an invariant already).
  void invariant_divisions(const Expr& e, int inner, std::vector<const Expr*>& out) const {
    if (e.kind == Expr::Kind::Access || !column_dependent(e, inner)) return;
    if (e.kind == Expr::Kind::Binary && e.op == '/' && !column_dependent(e.args[1], inner)) out.push_back(&e);
    for (const Expr& a : e.args) invariant_divisions(a, inner, out);
  }

  void params(SimtKernel& k, const std::vector<int>& assigns) const {
    std::map<int, bool> used;
    for (const TxAccess& acc : poly_.accesses) {
      if (std::find(assigns.begin(), assigns.end(), acc.assign) == assigns.end() || !is_global(acc.tensor)) continue;
      used[acc.tensor] = used[acc.tensor] || acc.write;
    }
    for (const auto& [t, w] : used) k.params.push_back({t, w});
  }

  std::vector<const TxAccess*> global_accesses(const SimtKernel& k) const {
    std::vector<const TxAccess*> out;
    for (const SimtStmt& s : k.stmts)
      for (const TxAccess& acc : poly_.accesses)
        if (acc.assign == s.assign && is_global(acc.tensor)) out.push_back(&acc);
    return out;
  }

  MappingCandidate::Cost global_cost(const TxAccess& acc, int lane, const std::string& phase = "") const {
    LaneDelta d = lane_delta(m_, acc, lane);
    const int n = warp_sectors(d, elem_bytes(m_.tensors[static_cast<size_t>(acc.tensor)].dtype));
    return {print_expr(*acc.expr) + (acc.write ? " (write" : " (read") + phase + ")", describe_delta(d), n};
  }

  std::string var(int l) const { return m_.loop_var(l); }

  // The staged tile's worst bank-conflict degree over the rows/columns: the read phase stores row
  // r = the warp's row-loop index, column = lane; the write phase loads row = lane, column = the
  // warp's lane-loop index.
  static std::pair<int, int> tile_wavefronts(SmemLayout layout) {
    int store = 1, load = 1;
    for (int64_t fixed = 0; fixed < 32; ++fixed) {
      std::vector<int64_t> st, ld;
      for (int64_t lane = 0; lane < 32; ++lane) {
        st.push_back(smem_word(layout, fixed, lane));
        ld.push_back(smem_word(layout, lane, fixed));
      }
      store = std::max(store, smem_wavefronts(st));
      load = std::max(load, smem_wavefronts(ld));
    }
    return {store, load};
  }

  // The ILP over out.space, then the choice.
  static void decide(SimtMapping& out) {
    out.ilp = solve_mapping_ilp(out.space);
    choose_mapping(out);
  }

  void map_candidates(SimtMapping& out) const {
    SimtKernel& k = out.kernel;
    std::vector<const TxAccess*> accs = global_accesses(k);
    struct Choice {
      int lane, row;
      bool staged;
      SmemLayout layout;
    };
    std::vector<Choice> choices;
    // Direct: lanes along each loop, warps along the innermost other loop.
    for (size_t d = 0; d < k.nest.size(); ++d) {
      int row = -1;
      for (size_t e = 0; e < k.nest.size(); ++e)
        if (e != d) row = k.nest[e];
      choices.push_back({k.nest[d], row, false, SmemLayout::Padded});
    }
    // Staged: read lanes along one loop, write lanes along another (one assignment only).
    if (k.stmts.size() == 1)
      for (int r : k.nest)
        for (int w : k.nest)
          if (r != w)
            for (SmemLayout l : {SmemLayout::Plain, SmemLayout::Padded, SmemLayout::Xor}) choices.push_back({r, w, true, l});
    std::vector<Choice> kept;
    for (const Choice& c : choices) {
      MappingCandidate cand;
      if (!c.staged) {
        cand.name = "lanes along " + var(c.lane) + (c.row >= 0 ? ", warps along " + var(c.row) : "");
        for (const TxAccess* a : accs) cand.costs.push_back(global_cost(*a, c.lane));
      } else {
        cand.name = "staged through a " + std::string(smem_layout_name(c.layout)) + " shared tile: read lanes along " + var(c.lane) +
                    ", write lanes along " + var(c.row);
        for (const TxAccess* a : accs)
          cand.costs.push_back(global_cost(*a, a->write ? c.row : c.lane, a->write ? ", write phase" : ", read phase"));
        const auto [store, load] = tile_wavefronts(c.layout);
        cand.costs.push_back({"tile (shared store, read phase)", store == 1 ? "conflict-free" : std::to_string(store) + "-way bank conflict", store});
        cand.costs.push_back({"tile (shared load, write phase)", load == 1 ? "conflict-free" : std::to_string(load) + "-way bank conflict", load});
      }
      cand.permutation = map_permutation(k, c.lane, c.row, c.staged);
      for (const auto& x : cand.costs) cand.total += x.transactions;
      out.candidates.push_back(cand);
      kept.push_back(c);
    }
    // The ILP over the same space: lane options are the nest's loops.
    MappingSpace& sp = out.space;
    for (int l : k.nest) sp.lanes.push_back(var(l));
    sp.warps = k.nest.size() >= 2;
    sp.stageable = k.stmts.size() == 1;
    for (const TxAccess* a : accs) {
      MappingSpace::Access x{global_cost(*a, k.nest[0]).access, a->write, {}};
      for (int l : k.nest) x.cost.push_back(global_cost(*a, l).transactions);
      sp.accesses.push_back(x);
    }
    for (SmemLayout l : {SmemLayout::Plain, SmemLayout::Padded, SmemLayout::Xor}) {
      const auto [store, load] = tile_wavefronts(l);
      sp.tile_cost[static_cast<size_t>(l)] = store + load;
    }
    decide(out);
    const Choice& c = kept[static_cast<size_t>(out.chosen)];
    k.lane_loop = c.lane;
    k.row_loop = c.row;
    k.staged = c.staged;
    k.layout = c.layout;
  }

  std::string map_permutation(const SimtKernel& k, int lane, int row, bool staged) const {
    std::ostringstream o;
    o << (row < 0 ? "(block, warp w < 8, lane l < 32) -> " : "(block, warp w < 8, lane l < 32, s < 4) -> ");
    if (row < 0) o << var(lane) << " = 256 * b_" << var(lane) << " + 32 * w + l";
    else o << var(lane) << " = 32 * b_" << var(lane) << " + l";
    if (row >= 0) o << ", " << var(row) << " = 32 * b_" << var(row) << " + w + 8 * s";
    for (int l : k.nest)
      if (l != lane && l != row) o << ", " << var(l) << " = b_" << var(l);
    o << "; block = (";
    bool first = true;
    for (int l : k.nest) {
      o << (first ? "" : ", ") << "b_" << var(l);
      first = false;
    }
    o << ") in row-major order";
    if (staged && row >= 0)
      o << "; write phase: " << var(row) << " = 32 * b_" << var(row) << " + l, " << var(lane) << " = 32 * b_" << var(lane) << " + w + 8 * s";
    return o.str();
  }

  void rows_candidates(SimtMapping& out) const {
    SimtKernel& k = out.kernel;
    std::vector<const TxAccess*> accs = global_accesses(k);
    auto inner_of = [&](const TxAccess& a) {
      for (const SimtStmt& s : k.stmts)
        if (s.assign == a.assign) return s.loop;
      return -1;
    };
    const std::string i = var(k.rows_loop);
    MappingCandidate cols;
    cols.name = "a row per warp or block, lanes along the columns";
    for (const TxAccess* a : accs) {
      const int inner = inner_of(*a);
      // A row-level statement is run by every thread of the row: its accesses are broadcasts.
      cols.costs.push_back(global_cost(*a, inner));
    }
    cols.permutation = "row length <= " + std::to_string(k.warp_max_len) + ": (block b, warp w < " + std::to_string(k.rows_per_warp_block) +
                       ", lane l < 32, s) -> " + i + " = " + std::to_string(k.rows_per_warp_block) + " * b + w, column = l + 32 * s; longer rows: (block b, thread t < " +
                       std::to_string(k.block_threads) + ", s) -> " + i + " = b, column = t + " + std::to_string(k.block_threads) + " * s";
    MappingCandidate rows;
    rows.name = "a row per thread, lanes along " + i;
    for (const TxAccess* a : accs) rows.costs.push_back(global_cost(*a, k.rows_loop));
    rows.permutation = "(block b, thread t < 256, s) -> " + i + " = 256 * b + t, column = s";
    for (auto* c : {&cols, &rows})
      for (const auto& x : c->costs) c->total += x.transactions;
    out.candidates = {cols, rows};
    // The ILP over the same space: lanes along the columns (each statement's inner loop) or the rows.
    out.space.lanes = {"columns", i};
    for (const TxAccess* a : accs)
      out.space.accesses.push_back({global_cost(*a, k.rows_loop).access, a->write,
                                    {global_cost(*a, inner_of(*a)).transactions, global_cost(*a, k.rows_loop).transactions}});
    decide(out);
    k.rows_by_lanes = out.chosen == 0;
    if (k.rows_by_lanes) k.vector_elems = vector_width(k, accs, inner_of);
    if (k.vector_elems > 1) cache_reads(k, accs, inner_of);
  }

  // The reads made at the same index by two or more inner loops (contiguous in their loops, so on
  // the vector path) are kept in registers across the loops.
  template <typename InnerOf>
  void cache_reads(SimtKernel& k, const std::vector<const TxAccess*>& accs, InnerOf inner_of) const {
    for (size_t a = 0; a < accs.size(); ++a) {
      const TxAccess& x = *accs[a];
      const int inner = inner_of(x);
      if (x.write || inner < 0 || lane_delta(m_, x, inner).delta == std::vector<int64_t>(x.expr->args.size(), 0)) continue;
      bool seen = false;
      for (const Expr* c : k.cached) seen = seen || same(*c, *x.expr);
      if (seen) continue;
      std::set<int> loops;
      for (const TxAccess* y : accs)
        if (!y->write && same(*y->expr, *x.expr) && inner_of(*y) >= 0) loops.insert(inner_of(*y));
      if (loops.size() >= 2) k.cached.push_back(x.expr);
    }
    if (!k.cached.empty()) k.cache_chunks = 32 / k.vector_elems;
  }

  // Elements per 16-byte vector when every column access of the inner loops is contiguous in its
  // loop (the loop variable alone in the innermost index) or a broadcast, and every inner loop
  // runs over the same length; 1 otherwise.
  template <typename InnerOf>
  int vector_width(const SimtKernel& k, const std::vector<const TxAccess*>& accs, InnerOf inner_of) const {
    int widest = 0;
    for (const SimtStmt& s : k.stmts)
      if (s.loop >= 0 && !same(m_.loops[static_cast<size_t>(s.loop)].stmt->extent, *k.row_length)) return 1;
    for (const TxAccess* a : accs) {
      const int inner = inner_of(*a);
      if (inner < 0) continue;
      LaneDelta d = lane_delta(m_, *a, inner);
      if (!d.regular) return 1;
      bool zero = std::all_of(d.delta.begin(), d.delta.end(), [](int64_t v) { return v == 0; });
      if (zero) continue;
      const Expr& last = a->expr->args.back();
      if (last.kind != Expr::Kind::Name || !m_.loop_of.count(&last) || m_.loop_of.at(&last) != inner) return 1;
      for (size_t x = 0; x + 1 < d.delta.size(); ++x)
        if (d.delta[x] != 0) return 1;
      widest = std::max(widest, elem_bytes(m_.tensors[static_cast<size_t>(a->tensor)].dtype));
    }
    return widest ? 16 / widest : 1;
  }
};

}  // namespace

const char* combine_name(Combine c) {
  switch (c) {
    case Combine::Sum: return "sum";
    case Combine::Max: return "max";
    case Combine::Min: return "min";
  }
  return "?";
}

const char* smem_layout_name(SmemLayout l) {
  switch (l) {
    case SmemLayout::Plain: return "plain";
    case SmemLayout::Padded: return "padded";
    case SmemLayout::Xor: return "xor";
  }
  return "?";
}

int64_t smem_word(SmemLayout l, int64_t r, int64_t c) {
  switch (l) {
    case SmemLayout::Plain: return r * 32 + c;
    case SmemLayout::Padded: return r * 33 + c;
    case SmemLayout::Xor: return r * 32 + (c ^ r);
  }
  return 0;
}

void choose_mapping(SimtMapping& x) {
  int best = 0;
  for (size_t c = 0; c < x.candidates.size(); ++c)
    if (x.candidates[c].total < x.candidates[static_cast<size_t>(best)].total) best = static_cast<int>(c);
  x.enumerated = best;
  x.chosen = x.ilp.proven ? x.ilp.chosen : best;
}

std::vector<SimtMapping> map_threads(const Model& m, const PolyModel& poly, const std::set<int>& absorbed, const std::string& base,
                                     size_t other_kernels, DiagnosticEngine& diag) {
  std::vector<SimtMapping> out;
  // Group the free assignments by their top-level item.
  std::map<const Stmt*, std::vector<int>> groups;
  std::vector<const Stmt*> order;
  for (size_t a = 0; a < m.assigns.size(); ++a) {
    if (absorbed.count(static_cast<int>(a))) continue;
    const AssignInfo& info = m.assigns[a];
    const Stmt* top = info.loops.empty() ? info.stmt : m.loops[static_cast<size_t>(info.loops[0])].stmt;
    if (!groups.count(top)) order.push_back(top);
    groups[top].push_back(static_cast<int>(a));
  }
  Mapper mapper(m, poly);
  for (const Stmt* top : order) {
    try {
      if (top->kind != Stmt::Kind::Loop)
        throw Refusal{top->loc, "a statement outside every loop cannot be a SIMT kernel", "put it in a `par` loop"};
      for (size_t a = 0; a < m.assigns.size(); ++a) {
        const AssignInfo& info = m.assigns[a];
        if (absorbed.count(static_cast<int>(a)) && !info.loops.empty() && m.loops[static_cast<size_t>(info.loops[0])].stmt == top)
          throw Refusal{info.stmt->loc, "this loop nest mixes a tensor-core kernel's statements with other statements",
                        "put the other statements in a loop nest of their own"};
      }
      int top_loop = -1;
      for (size_t l = 0; l < m.loops.size(); ++l)
        if (m.loops[l].stmt == top) top_loop = static_cast<int>(l);
      std::string name = base;
      if (other_kernels + order.size() > 1) name += "_" + m.tensors[static_cast<size_t>(m.assigns[static_cast<size_t>(groups[top].back())].target)].name;
      out.push_back(mapper.map(top_loop, groups[top], name));
    } catch (const Refusal& r) {
      auto& d = diag.error(r.loc, "cannot map this statement group onto threads: " + r.message);
      d.hint = r.hint;
    }
  }
  return out;
}

std::string format_mapping(const Model& m, const std::vector<SimtMapping>& maps) {
  std::ostringstream o;
  for (const SimtMapping& x : maps) {
    const SimtKernel& k = x.kernel;
    o << "kernel " << k.name << " (line " << k.loc.line << "): "
      << (k.shape == SimtKernel::Shape::Map ? "a map over a par nest" : "row reductions") << "\n";
    o << "  cost: 32-byte global sectors (plus shared-memory wavefronts) one warp moves per access\n";
    o << "  ILP (CBC):\n";
    for (const std::string& line : x.ilp.formulation) o << "    " << line << "\n";
    o << "    solution: " << x.ilp.status;
    if (x.ilp.solved) {
      o << "; cost " << x.ilp.cost << ", objective " << std::llround(x.ilp.objective) << " = " << x.candidates.size() << " * " << x.ilp.cost << " + "
        << x.ilp.chosen << "; at 1:";
      for (const auto& [name, value] : x.ilp.values)
        if (value) o << " " << name;
      o << " -> candidate [" << x.ilp.chosen << "]";
    }
    o << "\n";
    o << "  enumeration (the cross-check), the cost of every candidate:\n";
    for (size_t c = 0; c < x.candidates.size(); ++c) {
      const MappingCandidate& cand = x.candidates[c];
      o << "  " << (static_cast<int>(c) == x.chosen ? "* " : "  ") << "[" << c << "] " << cand.name << ": " << cand.total << "\n";
      for (const auto& cost : cand.costs) o << "        " << cost.access << ": " << cost.why << " -> " << cost.transactions << "\n";
    }
    o << "  chosen: [" << x.chosen << "] " << x.candidates[static_cast<size_t>(x.chosen)].name
      << (x.ilp.proven ? " (the ILP's proven optimum" : " (the enumeration's best: the ILP hit its budget")
      << (x.enumerated == x.chosen ? "; the enumeration agrees)" : "; the enumeration's best is [" + std::to_string(x.enumerated) + "])") << "\n";
    o << "  permutation: " << x.candidates[static_cast<size_t>(x.chosen)].permutation << "\n";
    o << print_simt(m, k);
  }
  return o.str();
}

}  // namespace loom::tx
