// Polyhedral model of a tensor-expression program with ISL. See poly.h.
#include "tx/poly.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "tx/isl_util.h"

namespace loom::tx {

const char* dep_kind_name(DepKind k) {
  switch (k) {
    case DepKind::Flow: return "flow";
    case DepKind::Anti: return "anti";
    case DepKind::Output: return "output";
  }
  return "?";
}

std::string stmt_name(int a) { return "S" + std::to_string(a); }

namespace {

struct BudgetExceeded {};

// Names ISL's parser reads as keywords get a trailing underscore.
std::string isl_name(const std::string& n) {
  static const std::set<std::string> words = {"and", "or", "not", "mod", "floor", "ceil", "min", "max", "exists",
                                              "infty", "NaN", "true", "false", "implies", "xor", "cst", "rat"};
  return words.count(n) ? n + "_" : n;
}

// The ISL text of a checked quasi-affine expression.
std::string isl_expr(const Expr& e) {
  if (auto c = constant_value(e)) return std::to_string(*c);
  switch (e.kind) {
    case Expr::Kind::Name: return isl_name(e.name);
    case Expr::Kind::Neg: return "(-" + isl_expr(e.args[0]) + ")";
    case Expr::Kind::Binary: {
      const std::string a = isl_expr(e.args[0]), b = isl_expr(e.args[1]);
      switch (e.op) {
        case '+': return "(" + a + " + " + b + ")";
        case '-': return "(" + a + " - " + b + ")";
        case '*': return "(" + a + " * " + b + ")";  // one side is constant (checked)
        case '/': return "floor(" + a + " / " + b + ")";
        case '%': return "(" + a + " mod " + b + ")";
      }
      break;
    }
    default: break;
  }
  LOOM_INTERNAL("not a checked quasi-affine expression: " << print_expr(e));
}

class Analysis {
 public:
  Analysis(const Model& m, DiagnosticEngine& diag) : m_(m), diag_(diag), ctx_(make_isl_ctx()) {
    std::string p;
    for (size_t i = 0; i < m.sizes.size(); ++i) p += (i ? ", " : "") + isl_name(m.sizes[i]);
    params_ = "[" + p + "] -> ";
    for (size_t i = 0; i < m.sizes.size(); ++i) context_ += (i ? " and " : "") + isl_name(m.sizes[i]) + " >= 1";
    for (const AssignInfo& a : m.assigns) max_depth_ = std::max(max_depth_, a.loops.size());
  }

  PolyModel run() {
    PolyModel out;
    for (size_t a = 0; a < m_.assigns.size(); ++a) out.domains.push_back(domain_text(static_cast<int>(a)));
    for (size_t a = 0; a < m_.assigns.size(); ++a) {
      const AssignInfo& info = m_.assigns[a];
      out.accesses.push_back({static_cast<int>(a), info.target, true, &info.stmt->lhs, access_text(static_cast<int>(a), info.stmt->lhs)});
      for (const Expr* r : info.reads)
        out.accesses.push_back({static_cast<int>(a), m_.tensor_of.at(r), false, r, access_text(static_cast<int>(a), *r)});
    }
    out.schedule = schedule_text();
    for (const TxAccess& acc : out.accesses) check_bounds(out, acc);
    for (size_t t = 0; t < m_.tensors.size(); ++t) dependences(out, static_cast<int>(t));
    check_par(out);
    return out;
  }

 private:
  const Model& m_;
  DiagnosticEngine& diag_;
  IslCtx ctx_;
  std::string params_, context_;
  size_t max_depth_ = 0;

  template <typename T>
  T* need(T* p, const char* what) {
    if (p) return p;
    if (isl_ctx_last_error(ctx_.get()) == isl_error_quota) throw BudgetExceeded{};
    LOOM_INTERNAL("ISL failed on " << what << ": " << (isl_ctx_last_error_msg(ctx_.get()) ? isl_ctx_last_error_msg(ctx_.get()) : "?"));
  }
  bool truth(isl_bool b) {
    if (b == isl_bool_error) need<void>(nullptr, "a test");
    return b == isl_bool_true;
  }

  std::string vars(int a) const {
    std::string s;
    for (size_t i = 0; i < m_.assigns[a].loops.size(); ++i) s += (i ? ", " : "") + isl_name(m_.loop_var(m_.assigns[a].loops[i]));
    return s;
  }
  std::string constraints(int a) const {
    std::string c = context_;
    for (int l : m_.assigns[a].loops) {
      const Stmt& s = *m_.loops[l].stmt;
      c += std::string(c.empty() ? "" : " and ") + "0 <= " + isl_name(s.var) + " < " + isl_expr(s.extent);
    }
    return c;
  }
  std::string domain_text(int a) const {
    std::string c = constraints(a);
    return params_ + "{ " + stmt_name(a) + "[" + vars(a) + "]" + (c.empty() ? "" : " : " + c) + " }";
  }
  std::string access_text(int a, const Expr& acc) const {
    const TensorInfo& t = m_.tensors[m_.tensor_of.at(&acc)];
    std::string idx;
    for (int l : t.loops) idx += (idx.empty() ? "" : ", ") + isl_name(m_.loop_var(l));
    for (const Expr& i : acc.args) idx += (idx.empty() ? "" : ", ") + isl_expr(i);
    std::string c = constraints(a);
    return params_ + "{ " + stmt_name(a) + "[" + vars(a) + "] -> " + isl_name(t.name) + "[" + idx + "]" +
           (c.empty() ? "" : " : " + c) + " }";
  }
  std::string extent_text(int t) const {
    const TensorInfo& info = m_.tensors[t];
    std::string dims, c = context_;
    for (size_t p = 0; p < info.loops.size(); ++p) dims += (dims.empty() ? "" : ", ") + ("p" + std::to_string(p));
    for (size_t d = 0; d < info.decl->extents.size(); ++d) {
      const std::string v = "a" + std::to_string(d);
      dims += (dims.empty() ? "" : ", ") + v;
      c += std::string(c.empty() ? "" : " and ") + "0 <= " + v + " < " + isl_expr(info.decl->extents[d]);
    }
    return params_ + "{ " + isl_name(info.name) + "[" + dims + "]" + (c.empty() ? "" : " : " + c) + " }";
  }
  std::string schedule_text() const {
    std::string s;
    for (size_t a = 0; a < m_.assigns.size(); ++a) {
      const AssignInfo& info = m_.assigns[a];
      std::string out;
      for (size_t d = 0; d <= max_depth_; ++d) {
        out += (d ? ", " : "") + std::to_string(d < info.position.size() ? info.position[d] : 0);
        if (d < max_depth_) out += ", " + (d < info.loops.size() ? isl_name(m_.loop_var(info.loops[d])) : std::string("0"));
      }
      s += (a ? "; " : "") + stmt_name(static_cast<int>(a)) + "[" + vars(static_cast<int>(a)) + "] -> [" + out + "]";
    }
    return params_ + "{ " + s + " }";
  }

  // "M = 1, K = 1, i = 0, k = 0" for a sample point of `set` whose set dimensions are named `names`.
  std::string describe_point(isl_set* set, const std::vector<std::string>& names) {
    IslPoint p(need(isl_set_sample_point(isl_set_copy(set)), "a sample point"));
    if (truth(isl_point_is_void(p.get()))) return "";
    std::string s;
    auto coord = [&](isl_dim_type type, int pos) {
      isl_val* v = need(isl_point_get_coordinate_val(p.get(), type, pos), "a coordinate");
      std::string text = isl_text(isl_val_to_str(v));
      isl_val_free(v);
      return text;
    };
    for (size_t i = 0; i < m_.sizes.size(); ++i) {
      int pos = isl_set_find_dim_by_name(set, isl_dim_param, isl_name(m_.sizes[i]).c_str());
      if (pos >= 0) s += (s.empty() ? "" : ", ") + m_.sizes[i] + " = " + coord(isl_dim_param, pos);
    }
    for (size_t d = 0; d < names.size(); ++d) s += (s.empty() ? "" : ", ") + names[d] + " = " + coord(isl_dim_set, static_cast<int>(d));
    return s;
  }

  std::vector<std::string> var_names(int a, const std::string& suffix = "") const {
    std::vector<std::string> out;
    for (int l : m_.assigns[a].loops) out.push_back(m_.loop_var(l) + suffix);
    return out;
  }

  void check_bounds(const PolyModel&, const TxAccess& acc) {
    IslMap map(need(isl_map_read_from_str(ctx_.get(), acc.relation.c_str()), "an access relation"));
    const std::string ext = extent_text(acc.tensor);
    IslSet inside(need(isl_set_read_from_str(ctx_.get(), ext.c_str()), "a tensor's extents"));
    IslSet bad(need(isl_map_domain(isl_map_subtract_range(isl_map_copy(map.get()), isl_set_copy(inside.get()))), "an out-of-bounds set"));
    if (truth(isl_set_is_empty(bad.get()))) return;
    const TensorInfo& t = m_.tensors[acc.tensor];
    std::string shape;
    for (size_t d = 0; d < t.decl->extents.size(); ++d) shape += (d ? ", " : "") + print_expr(t.decl->extents[d]);
    auto& d = diag_.error(acc.expr->loc, "out-of-bounds access: " + print_expr(*acc.expr) + " can leave '" + t.name + "' [" + shape +
                                             "] (for example at " + describe_point(bad.get(), var_names(acc.assign)) + ")");
    DiagnosticEngine::note(d, t.decl->name_loc, "'" + t.name + "' is declared here");
    d.hint = "every index must stay in [0, extent) for every value of the size symbols";
  }

  IslUMap union_of(const PolyModel& p, int tensor, bool writes) {
    std::string text;
    for (const TxAccess& a : p.accesses)
      if (a.tensor == tensor && a.write == writes) {
        // The text of one map, without its parameter prefix, joined into one union map.
        const std::string& r = a.relation;
        const size_t open = r.find('{'), close = r.rfind('}');
        text += (text.empty() ? "" : "; ") + r.substr(open + 1, close - open - 1);
      }
    return IslUMap(need(isl_union_map_read_from_str(ctx_.get(), (params_ + "{ " + text + " }").c_str()), "an access union"));
  }

  void dependences(PolyModel& p, int tensor) {
    IslUMap reads = union_of(p, tensor, false), writes = union_of(p, tensor, true);
    auto flow = [&](DepKind kind, isl_union_map* sink, isl_union_map* must, isl_union_map* may) {
      isl_union_access_info* info = isl_union_access_info_from_sink(isl_union_map_copy(sink));
      if (must) info = isl_union_access_info_set_must_source(info, isl_union_map_copy(must));
      if (may) info = isl_union_access_info_set_may_source(info, isl_union_map_copy(may));
      info = isl_union_access_info_set_schedule_map(info, need(isl_union_map_read_from_str(ctx_.get(), p.schedule.c_str()), "the schedule"));
      isl_union_flow* f = need(isl_union_access_info_compute_flow(need(info, "access info")), "a dependence computation");
      IslUMap deps(need(isl_union_flow_get_may_dependence(f), "the dependences"));
      isl_union_flow_free(f);
      struct Ctx { Analysis* self; PolyModel* p; DepKind kind; int tensor; };
      Ctx c{this, &p, kind, tensor};
      isl_union_map_foreach_map(deps.get(), [](isl_map* map, void* user) -> isl_stat {
        Ctx& c = *static_cast<Ctx*>(user);
        IslMap owned(map);
        if (isl_map_is_empty(map) == isl_bool_true) return isl_stat_ok;
        TxDependence d;
        d.kind = c.kind;
        d.tensor = c.tensor;
        d.source = std::stoi(isl_map_get_tuple_name(map, isl_dim_in) + 1);
        d.sink = std::stoi(isl_map_get_tuple_name(map, isl_dim_out) + 1);
        d.relation = isl_text(isl_map_to_str(map));
        c.p->deps.push_back(std::move(d));
        return isl_stat_ok;
      }, &c);
    };
    flow(DepKind::Flow, reads.get(), writes.get(), nullptr);
    flow(DepKind::Anti, writes.get(), nullptr, reads.get());
    flow(DepKind::Output, writes.get(), writes.get(), nullptr);
  }

  // The first access of `tensor` in assignment `a` that is a write (or a read).
  const Expr* access_in(const PolyModel& p, int a, int tensor, bool write) const {
    for (const TxAccess& acc : p.accesses)
      if (acc.assign == a && acc.tensor == tensor && acc.write == write) return acc.expr;
    return nullptr;
  }

  void check_par(const PolyModel& p) {
    for (size_t l = 0; l < m_.loops.size(); ++l) {
      const Stmt& loop = *m_.loops[l].stmt;
      if (!loop.par) continue;
      for (const TxDependence& d : p.deps) {
        const auto& src = m_.assigns[d.source].loops;
        const auto& snk = m_.assigns[d.sink].loops;
        auto at_s = std::find(src.begin(), src.end(), static_cast<int>(l));
        auto at_k = std::find(snk.begin(), snk.end(), static_cast<int>(l));
        if (at_s == src.end() || at_k == snk.end()) continue;
        const int depth = static_cast<int>(at_s - src.begin());
        IslMap map(need(isl_map_read_from_str(ctx_.get(), d.relation.c_str()), "a dependence"));
        for (int i = 0; i < depth; ++i) map.reset(need(isl_map_equate(map.release(), isl_dim_in, i, isl_dim_out, i), "an equation"));
        IslMap lt(need(isl_map_order_lt(isl_map_copy(map.get()), isl_dim_in, depth, isl_dim_out, depth), "an order"));
        IslMap gt(need(isl_map_order_gt(map.release(), isl_dim_in, depth, isl_dim_out, depth), "an order"));
        IslMap carried(need(isl_map_union(lt.release(), gt.release()), "a union"));
        if (truth(isl_map_is_empty(carried.get()))) continue;
        report_carried(p, loop, d, carried.get());
        break;  // one diagnostic per loop
      }
    }
  }

  void report_carried(const PolyModel& p, const Stmt& loop, const TxDependence& d, isl_map* carried) {
    const std::string& tensor = m_.tensors[d.tensor].name;
    const bool src_writes = d.kind != DepKind::Anti, snk_writes = d.kind != DepKind::Flow;
    const Expr* src = access_in(p, d.source, d.tensor, src_writes);
    const Expr* snk = access_in(p, d.sink, d.tensor, snk_writes);
    std::vector<std::string> names = var_names(d.source);
    for (const std::string& n : var_names(d.sink, "'")) names.push_back(n);
    IslSet wrapped(need(isl_map_wrap(isl_map_copy(carried)), "a wrapped map"));
    const std::string example = describe_point(wrapped.get(), names);
    auto where = [&](int a) { return std::to_string(m_.assigns[a].stmt->loc.line) + ":" + std::to_string(m_.assigns[a].stmt->loc.col); };
    std::string msg = "`par` loop '" + loop.var + "' carries " + (d.kind == DepKind::Flow ? "a " : "an ") + dep_kind_name(d.kind) + " dependence on '" + tensor + "': " +
                      print_expr(*src) + " is " + (src_writes ? "written" : "read") + " by the statement at " + where(d.source) +
                      " and " + print_expr(*snk) + " " + (snk_writes ? "written" : "read") + " by the statement at " + where(d.sink) +
                      " in another iteration of '" + loop.var + "'";
    if (!example.empty()) msg += " (for example " + example + ")";
    auto& diag = diag_.error(loop.loc, msg);
    DiagnosticEngine::note(diag, src->loc, std::string("the ") + (src_writes ? "write" : "read") + " of '" + tensor + "'");
    if (d.sink != d.source || snk != src)
      DiagnosticEngine::note(diag, snk->loc, std::string("the ") + (snk_writes ? "write" : "read") + " of '" + tensor + "'");
    diag.hint = "make '" + loop.var + "' a `seq` loop, or give each of its iterations its own elements (a `new` buffer inside the loop)";
  }
};

}  // namespace

PolyModel analyze_tx(const Model& m, DiagnosticEngine& diag) {
  // The analysis's cost grows steeply with the nesting depth (the schedule and dependence relations
  // have two dimensions per loop level): 32 levels take seconds, 160 fail inside ISL. Tensor
  // programs nest a handful of loops, so deeper ones are refused before ISL sees them.
  for (size_t l = 0; l < m.loops.size(); ++l) {
    size_t depth = 1;
    for (int p = m.loops[l].parent; p >= 0; p = m.loops[static_cast<size_t>(p)].parent) ++depth;
    if (depth > kMaxLoopDepth) {
      auto& d = diag.error(m.loops[l].stmt->loc, "loops are nested " + std::to_string(depth) + " deep here; the polyhedral analysis takes at most " +
                                                     std::to_string(kMaxLoopDepth) + " levels");
      d.hint = "merge loops (a tensor of rank r needs r loops)";
      return {};
    }
  }
  Analysis a(m, diag);
  try {
    return a.run();
  } catch (const BudgetExceeded&) {
    SourceLoc loc = m.program->items.empty() ? SourceLoc{} : m.program->items.front().loc;
    auto& d = diag.error(loc, "the polyhedral analysis exceeded its budget of " + std::to_string(kIslMaxOperations) +
                                  " ISL operations; the program was not analyzed");
    d.hint = "simplify the index expressions (large floor-division or mod constants are costly)";
    return {};
  }
}

std::string format_poly(const Model& m, const PolyModel& p) {
  std::ostringstream o;
  o << "# iteration domains\n";
  for (size_t a = 0; a < p.domains.size(); ++a) {
    const SourceLoc& l = m.assigns[a].stmt->loc;
    o << stmt_name(static_cast<int>(a)) << " (line " << l.line << "): " << print_expr(m.assigns[a].stmt->lhs)
      << (m.assigns[a].stmt->accumulate ? " += " : " = ") << print_expr(m.assigns[a].stmt->rhs) << "\n  " << p.domains[a] << "\n";
  }
  o << "# accesses\n";
  for (const TxAccess& a : p.accesses) o << (a.write ? "write " : "read  ") << a.relation << "\n";
  o << "# schedule\n" << p.schedule << "\n";
  for (DepKind k : {DepKind::Flow, DepKind::Anti, DepKind::Output}) {
    o << "# " << dep_kind_name(k) << " dependences\n";
    for (const TxDependence& d : p.deps)
      if (d.kind == k) o << m.tensors[d.tensor].name << ": " << d.relation << "\n";
  }
  return o.str();
}

}  // namespace loom::tx
