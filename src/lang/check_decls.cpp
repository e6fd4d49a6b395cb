// Stage 1 of checking: declarations and variant bodies, without the mapping. Resolves names, checks
// variants against their tasks, what inner and leaf variants may do, ranks, privileges (no
// escalation), and aliasing writes in prange. See include/loom/check.h; tests: tests/errors/.
#include <algorithm>
#include <memory>

#include "lang/check_internal.h"
#include "layout/partition.h"
#include "loom/frontend.h"

namespace loom::check_detail {

Diagnostic& Reporter::error(SourceLoc loc, const std::string& msg) {
  if (!seen_.insert({loc.file, loc.line, loc.col, msg}).second) {
    scratch_ = Diagnostic{};
    return scratch_;
  }
  return diag.error(loc, msg);
}

static size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest(const std::string& name, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = 3;
  if (name.size() > 64) return best;
  for (const std::string& c : candidates) {
    if (c.size() > 64) continue;
    size_t d = edit_distance(name, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  std::string c = closest(name, candidates);
  return c.empty() ? "" : "did you mean '" + c + "'?";
}

namespace {

const char* kScalarTypes[] = {"f32", "i32", "index"};

bool is_scalar_type(const std::string& s) {
  for (const char* t : kScalarTypes)
    if (s == t) return true;
  return false;
}

const char* kind_word(SymKind k) {
  switch (k) {
    case SymKind::TensorParam: return "tensor parameter";
    case SymKind::ScalarParam: return "scalar parameter";
    case SymKind::Dim: return "dimension";
    case SymKind::Tunable: return "tunable";
    case SymKind::LoopVar: return "loop variable";
    case SymKind::Scalar: return "scalar";
    case SymKind::Partition: return "partition";
    case SymKind::Local: return "local tensor";
    case SymKind::View: return "tensor";
  }
  return "name";
}

bool is_tensor_kind(SymKind k) { return k == SymKind::TensorParam || k == SymKind::Local || k == SymKind::View; }
bool is_scalar_kind(SymKind k) {
  return k == SymKind::ScalarParam || k == SymKind::Dim || k == SymKind::Tunable || k == SymKind::LoopVar ||
         k == SymKind::Scalar;
}

// A resolved tensor argument.
struct TRef {
  bool ok = false;
  std::string root;
  int rank = 0;
  std::string partition;                 // set when the tensor is a piece of a partition
  bool disjoint = true;
  std::vector<const Expr*> coords;       // the index coordinates, when a piece
};

class BodyChecker {
 public:
  BodyChecker(const Program& p, Reporter& r, VariantInfo& info) : p_(p), r_(r), info_(info), v_(*info.decl), t_(*info.task) {}

  void run() {
    // Parameters, their dims, and tunables form the outer scope.
    for (size_t i = 0; i < t_.params.size(); ++i) {
      const Param& tp = t_.params[i];
      const std::string& local_name = i < v_.params.size() ? v_.params[i].name.name : tp.name.name;
      Sym s;
      s.loc = tp.name.loc;
      if (tp.is_tensor) {
        s.kind = SymKind::TensorParam;
        s.rank = static_cast<int>(tp.dims.size());
        s.root = local_name;
        privs_[local_name] = tp.priv;
      } else {
        s.kind = SymKind::ScalarParam;
      }
      scope_[local_name] = s;
    }
    for (const Param& tp : t_.params)
      for (const Ident& d : tp.dims)
        if (!scope_.count(d.name)) scope_[d.name] = Sym{SymKind::Dim, d.loc};
    for (const Ident& tu : v_.tunables) scope_[tu.name] = Sym{SymKind::Tunable, tu.loc};

    if (v_.is_extern) {
      if (v_.kind != VariantKind::Leaf) {
        auto& d = r_.error(v_.extern_loc, "only leaf variants can have an extern body; '" + v_.name.name + "' is inner");
        d.hint = "declare it ': leaf'";
      }
      return;
    }
    check_stmts(v_.body, {});
  }

 private:
  struct LoopCtx {
    bool parallel;
    std::vector<std::string> vars;
    SourceLoc loc;
    // prange: tensors a launch in this body reduced into ('red'), with where. A reduction completes
    // only after the whole prange, so a later launch in the same body may not read them.
    std::shared_ptr<std::map<std::string, SourceLoc>> reduced;
  };

  bool inner() const { return v_.kind == VariantKind::Inner; }

  const Sym* lookup(const std::string& n) const {
    auto it = scope_.find(n);
    return it == scope_.end() ? nullptr : &it->second;
  }

  std::vector<std::string> names_in_scope() const {
    std::vector<std::string> out;
    for (auto& [n, s] : scope_) out.push_back(n);
    return out;
  }

  void unknown_name(const Expr& e) {
    auto& d = r_.error(e.loc, "unknown name '" + e.name + "'");
    d.hint = did_you_mean(e.name, names_in_scope());
  }

  void define(const Ident& id, Sym s) {
    if (const Sym* prev = lookup(id.name)) {
      auto& d = r_.error(id.loc, "redefinition of '" + id.name + "'");
      if (prev->loc.valid()) DiagnosticEngine::note(d, prev->loc, "'" + id.name + "' is first defined here");
      d.hint = "each name is bound once per variant; choose another name";
      return;
    }
    s.loc = id.loc;
    scope_[id.name] = s;
  }

  // ---- scalar expressions ----
  void check_scalar(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Int:
      case ExprKind::Float: return;
      case ExprKind::Name: {
        const Sym* s = lookup(e.name);
        if (!s) return unknown_name(e);
        if (!is_scalar_kind(s->kind))
          r_.error(e.loc, "'" + e.name + "' is a " + kind_word(s->kind) + ", expected a scalar value");
        return;
      }
      case ExprKind::Star:
        r_.error(e.loc, "'*' (the whole extent) is only allowed in a blocks(...) size list");
        return;
      case ExprKind::Unary: return check_scalar(e.args[0]);
      case ExprKind::Binary:
        check_scalar(e.args[0]);
        check_scalar(e.args[1]);
        return;
      case ExprKind::List: r_.error(e.loc, "a list is not a scalar value"); return;
      case ExprKind::Index: r_.error(e.loc, "a tensor piece is not a scalar value"); return;
      case ExprKind::Call: return check_scalar_call(e);
    }
  }

  void check_scalar_call(const Expr& e) {
    auto arity = [&](size_t n) {
      if (e.args.size() != n) {
        r_.error(e.loc, "'" + e.name + "' takes " + std::to_string(n) + " argument(s), " +
                            std::to_string(e.args.size()) + " given");
        return false;
      }
      return true;
    };
    if (e.name == "cdiv" || e.name == "min" || e.name == "max") {
      if (arity(2)) {
        check_scalar(e.args[0]);
        check_scalar(e.args[1]);
      }
    } else if (e.name == "rows" || e.name == "cols") {
      if (arity(1)) {
        TRef t = tensor_ref(e.args[0]);
        if (t.ok && t.rank < (e.name == "rows" ? 1 : 2))
          r_.error(e.loc, "'" + e.name + "' needs a tensor of rank " + (e.name == "rows" ? "1" : "2") + " or more");
      }
    } else if (e.name == "dim") {
      if (arity(2)) {
        TRef t = tensor_ref(e.args[0]);
        if (e.args[1].kind != ExprKind::Int) {
          r_.error(e.args[1].loc, "the dimension in dim(T, d) must be an integer literal");
        } else if (t.ok && (e.args[1].ival < 0 || e.args[1].ival >= t.rank)) {
          r_.error(e.args[1].loc, "dimension " + std::to_string(e.args[1].ival) + " is out of range for a tensor of rank " +
                                      std::to_string(t.rank));
        }
      }
    } else if (e.name == "pieces") {
      if (e.args.size() != 1 && e.args.size() != 2) {
        r_.error(e.loc, "'pieces' takes a partition and optionally a dimension");
        return;
      }
      if (e.args[0].kind != ExprKind::Name || !lookup(e.args[0].name) ||
          lookup(e.args[0].name)->kind != SymKind::Partition) {
        if (e.args[0].kind == ExprKind::Name && !lookup(e.args[0].name)) return unknown_name(e.args[0]);
        r_.error(e.args[0].loc, "'pieces' needs a partition");
        return;
      }
      if (e.args.size() == 2) {
        const Sym* s = lookup(e.args[0].name);
        if (e.args[1].kind != ExprKind::Int || e.args[1].ival < 0 || e.args[1].ival >= s->colors)
          r_.error(e.args[1].loc, "pieces(P, d) needs an integer literal d below " + std::to_string(s->colors));
      }
    } else if (find_leaf_op(e.name) || e.name == "blocks" || e.name == "mma" || e.name == "slices" ||
               e.name == "tensor") {
      r_.error(e.loc, "'" + e.name + "' does not give a scalar value here");
    } else {
      auto& d = r_.error(e.loc, "unknown function '" + e.name + "'");
      d.hint = "scalar functions are cdiv, min, max, rows, cols, dim and pieces";
    }
  }

  // ---- tensor expressions ----
  TRef tensor_ref(const Expr& e) {
    TRef t;
    if (e.kind == ExprKind::Name) {
      const Sym* s = lookup(e.name);
      if (!s) {
        unknown_name(e);
        return t;
      }
      if (s->kind == SymKind::Partition) {
        auto& d = r_.error(e.loc, "'" + e.name + "' is a partition, expected a tensor");
        d.hint = "index the partition to get one piece, e.g. " + e.name + "[i]";
        return t;
      }
      if (!is_tensor_kind(s->kind)) {
        r_.error(e.loc, "'" + e.name + "' is a " + kind_word(s->kind) + ", expected a tensor");
        return t;
      }
      if (s->kind == SymKind::View && s->def) return tensor_ref(*s->def);
      t.ok = true;
      t.root = s->root;
      t.rank = s->rank;
      return t;
    }
    if (e.kind == ExprKind::Index) {
      const Expr& base = e.args[0];
      if (base.kind != ExprKind::Name) {
        r_.error(e.loc, "only a named partition can be indexed");
        return t;
      }
      const Sym* s = lookup(base.name);
      if (!s) {
        unknown_name(base);
        return t;
      }
      if (s->kind != SymKind::Partition) {
        auto& d = r_.error(base.loc, "'" + base.name + "' is a " + kind_word(s->kind) + " and cannot be indexed");
        d.hint = "partition it first, e.g. P = blocks(" + base.name + ", [...])";
        return t;
      }
      size_t n = e.args.size() - 1;
      if (static_cast<int>(n) != s->colors) {
        r_.error(e.loc, "partition '" + base.name + "' takes " + std::to_string(s->colors) + " index coordinate(s), " +
                            std::to_string(n) + " given");
        return t;
      }
      for (size_t i = 1; i < e.args.size(); ++i) {
        check_scalar(e.args[i]);
        t.coords.push_back(&e.args[i]);
      }
      t.ok = true;
      t.root = s->root;
      t.rank = s->rank;
      t.partition = base.name;
      t.disjoint = s->disjoint;
      return t;
    }
    r_.error(e.loc, "expected a tensor (a name or a partition piece like P[i, j]), found '" + format_expr(e) + "'");
    return t;
  }

  // ---- bindings ----
  void check_bind(const Stmt& s) {
    const Expr& v = s.value;
    if (v.kind == ExprKind::Call && (v.name == "blocks" || v.name == "mma" || v.name == "slices")) {
      if (!inner()) {
        auto& d = r_.error(v.loc, "leaf variant '" + v_.name.name + "' cannot partition tensors");
        d.hint = "partition in an inner variant and launch a task on the pieces";
        return;
      }
      Sym p;
      p.kind = SymKind::Partition;
      p.op = v.name;
      if (v.args.empty()) {
        r_.error(v.loc, "'" + v.name + "' needs the tensor to partition");
        return;
      }
      TRef src = tensor_ref(v.args[0]);
      if (!src.ok) return;
      p.root = src.root;
      if (v.name == "blocks") {
        if (v.args.size() != 2 || v.args[1].kind != ExprKind::List) {
          auto& d = r_.error(v.loc, "blocks takes a tensor and a list of block sizes");
          d.hint = "e.g. blocks(C, [U, V]); '*' keeps a whole dimension";
          return;
        }
        const Expr& sizes = v.args[1];
        if (static_cast<int>(sizes.args.size()) != src.rank) {
          auto& d = r_.error(sizes.loc, "blocks of a rank-" + std::to_string(src.rank) + " tensor needs " +
                                            std::to_string(src.rank) + " block sizes, " +
                                            std::to_string(sizes.args.size()) + " given");
          d.hint = "write '*' for a dimension that is not split";
          return;
        }
        for (const Expr& sz : sizes.args)
          if (sz.kind != ExprKind::Star) check_scalar(sz);
        p.rank = src.rank;
        p.colors = src.rank;
        p.disjoint = src.disjoint;
      } else if (v.name == "mma") {
        if (v.args.size() != 3 && v.args.size() != 4) {
          auto& d = r_.error(v.loc, "mma takes a tensor, an operand role, an instruction and optionally `transposed`");
          d.hint = "e.g. mma(C, acc, wgmma(64, 256, 16)); roles are acc, lhs and rhs";
          return;
        }
        if (v.args.size() == 4 && (v.args[3].kind != ExprKind::Name || v.args[3].name != "transposed")) {
          auto& d = r_.error(v.args[3].loc, "expected `transposed` after the mma instruction, found '" + format_expr(v.args[3]) + "'");
          d.hint = "mma(C, acc, wgmma(64, N, 16), transposed) runs the instruction on C^T = B^T A^T: its 64 rows along C's columns";
          // Go on as if untransposed: the partition stays defined (no cascade at its uses).
        }
        if (v.args[1].kind != ExprKind::Name || !parse_mma_role(v.args[1].name)) {
          auto& d = r_.error(v.args[1].loc, "unknown mma operand role '" + format_expr(v.args[1]) + "'");
          d.hint = "roles are acc (C), lhs (A) and rhs (B)";
          return;
        }
        const Expr& ins = v.args[2];
        if (ins.kind != ExprKind::Call || (ins.name != "wgmma" && ins.name != "mma_sync") || ins.args.size() != 3) {
          auto& d = r_.error(ins.loc, "expected an mma instruction shape, found '" + format_expr(ins) + "'");
          d.hint = "wgmma(64, N, 16) on sm_90a or mma_sync(16, 8, 16)";
          return;
        }
        for (const Expr& a : ins.args) check_scalar(a);
        const MmaRole role = *parse_mma_role(v.args[1].name);
        if (src.rank != 2 && !(src.rank == 1 && role != MmaRole::Lhs)) {
          auto& d = r_.error(v.args[0].loc, "an mma partition needs a rank-2 tensor (or a rank-1 row vector with role acc, "
                                            "or column vector with role rhs), this one has rank " + std::to_string(src.rank));
          d.hint = "mma(v, acc, ...) on a rank-1 tensor gives each piece the entries of its accumulator rows, "
                   "mma(v, rhs, ...) those of its accumulator columns";
          return;
        }
        if (v.args.size() == 4 && src.rank != 2 && !(src.rank == 1 && role == MmaRole::Rhs)) {
          auto& d = r_.error(v.args[0].loc, "a transposed mma partition needs a rank-2 tensor or a column vector (role rhs), this one has rank " +
                                                std::to_string(src.rank) + (src.rank == 1 ? " and role " + v.args[1].name : ""));
          d.hint = "row vectors take the untransposed partition; a transposed accumulator's columns are cut by mma(b, rhs, ..., transposed)";
        }
        p.rank = src.rank;
        p.colors = 1;
        p.disjoint = src.disjoint && *parse_mma_role(v.args[1].name) == MmaRole::Acc;
      } else {  // slices
        if (v.args.size() != 2 || v.args[1].kind != ExprKind::Int) {
          auto& d = r_.error(v.loc, "slices takes a tensor and a dimension (an integer literal)");
          d.hint = "e.g. slices(A, 0) gives one rank-(r-1) piece per index of dimension 0";
          return;
        }
        if (src.rank < 2) {
          r_.error(v.args[0].loc, "slices needs a tensor of rank 2 or more");
          return;
        }
        if (v.args[1].ival < 0 || v.args[1].ival >= src.rank) {
          r_.error(v.args[1].loc, "dimension " + std::to_string(v.args[1].ival) + " is out of range for a rank-" +
                                      std::to_string(src.rank) + " tensor");
          return;
        }
        p.rank = src.rank - 1;
        p.colors = 1;
        p.disjoint = src.disjoint;
      }
      define(s.target, p);
      return;
    }
    if (v.kind == ExprKind::Call && v.name == "tensor") {
      if (v.args.size() != 2 || v.args[0].kind != ExprKind::Name || v.args[1].kind != ExprKind::List ||
          v.args[1].args.empty()) {
        auto& d = r_.error(v.loc, "tensor takes an element type and a list of extents");
        d.hint = "e.g. Acc = tensor(f32, [M, N])";
        return;
      }
      const std::string& ty = v.args[0].name;
      bool is_param = std::any_of(t_.type_params.begin(), t_.type_params.end(), [&](const Ident& i) { return i.name == ty; });
      if (!parse_dtype(ty) && !is_param) {
        auto& d = r_.error(v.args[0].loc, "unknown element type '" + ty + "'");
        d.hint = "element types are f16, bf16, f32, i32 or a type parameter of task '" + t_.name.name + "'";
        // Still define the name so later uses do not cascade into "unknown name" errors.
      }
      for (const Expr& x : v.args[1].args) check_scalar(x);
      Sym l;
      l.kind = SymKind::Local;
      l.rank = static_cast<int>(v.args[1].args.size());
      l.root = s.target.name;
      privs_[s.target.name] = Privilege::ReadWrite;
      define(s.target, l);
      return;
    }
    if (v.kind == ExprKind::Index || (v.kind == ExprKind::Name && lookup(v.name) && is_tensor_kind(lookup(v.name)->kind))) {
      TRef t = tensor_ref(v);
      if (!t.ok) return;
      Sym view;
      view.kind = SymKind::View;
      view.rank = t.rank;
      view.root = t.root;
      view.def = &v;
      define(s.target, view);
      return;
    }
    check_scalar(v);
    define(s.target, Sym{SymKind::Scalar});
  }

  // ---- launches and leaf ops ----
  void check_call(const Stmt& s, const std::vector<LoopCtx>& loops) {
    const std::string& callee = s.target.name;
    const TaskDecl* task = p_.find_task(callee);
    const LeafOp* op = find_leaf_op(callee);
    if (inner()) {
      if (!task) {
        if (op) {
          auto& d = r_.error(s.target.loc, "inner variant '" + v_.name.name + "' cannot access tensor data: '" + callee +
                                               "' is a leaf operation");
          d.hint = "compute in a leaf variant and launch its task from here";
          DiagnosticEngine::note(d, v_.kind_loc, "'" + v_.name.name + "' is declared inner here");
        } else {
          std::vector<std::string> names;
          for (const TaskDecl& t : p_.tasks) names.push_back(t.name.name);
          auto& d = r_.error(s.target.loc, "unknown task '" + callee + "'");
          d.hint = did_you_mean(callee, names);
        }
        return;
      }
      check_launch(s, *task, loops);
      return;
    }
    // Leaf variant.
    if (!s.label.name.empty()) r_.error(s.label.loc, "labels name task launches; a leaf operation cannot have one");
    if (!op) {
      if (task) {
        auto& d = r_.error(s.target.loc, "leaf variant '" + v_.name.name + "' cannot launch task '" + callee + "'");
        d.hint = "declare '" + v_.name.name + "' ': inner' to launch sub-tasks";
        DiagnosticEngine::note(d, v_.kind_loc, "'" + v_.name.name + "' is declared leaf here");
      } else {
        std::vector<std::string> names;
        for (const LeafOp& o : leaf_ops()) names.push_back(o.name);
        auto& d = r_.error(s.target.loc, "unknown leaf operation '" + callee + "'");
        std::string dym = did_you_mean(callee, names);
        d.hint = dym.empty() ? "built-in leaf operations are mma, fill, clear, copy, convert, exp, exp2, scale, rowmax, "
                               "rowsum, add, sub, mul, div, max, relu, sigmoid, tanh, silu; or use an extern body"
                             : dym;
      }
      return;
    }
    check_leaf_op(s, *op);
  }

  void check_leaf_op(const Stmt& s, const LeafOp& op) {
    if (s.args.size() != op.args.size()) {
      r_.error(s.target.loc, "'" + std::string(op.name) + "' takes " + std::to_string(op.args.size()) + " argument(s), " +
                                 std::to_string(s.args.size()) + " given");
      return;
    }
    std::vector<int> ranks;
    for (size_t i = 0; i < op.args.size(); ++i) {
      const OpArg& a = op.args[i];
      const Expr& e = s.args[i];
      if (a.kind == OpArgKind::Scalar) {
        check_scalar(e);
        ranks.push_back(0);
        continue;
      }
      TRef t = tensor_ref(e);
      if (!t.ok) return;
      ranks.push_back(t.rank);
      auto pr = privs_.find(t.root);
      if (pr != privs_.end() && is_reduce(pr->second)) {
        const char* allowed = pr->second == Privilege::ReduceSum ? "rowsum" : "rowmax";
        if (!(i == 0 && std::string(op.name) == allowed)) {
          auto& d = r_.error(e.loc, "task '" + t_.name.name + "' holds only the " + privilege_spelling(pr->second) +
                                        " privilege on '" + t.root + "'; it may only combine into it with " + allowed);
          d.hint = "declare '" + t.root + ": rw' to read or overwrite it (then parallel launches cannot share it)";
        }
        continue;
      }
      check_access(e, t, a.access == Access::Write || a.access == Access::ReadWrite,
                   a.access == Access::Read || a.access == Access::ReadWrite, std::string("'") + op.name + "'");
    }
    auto rank_err = [&](size_t i, const std::string& want) {
      r_.error(s.args[i].loc, "'" + std::string(op.name) + "' needs " + want + " as argument " + std::to_string(i + 1) +
                                  ", this tensor has rank " + std::to_string(ranks[i]));
    };
    switch (op.family) {
      case OpFamily::Mma:
        for (size_t i = 0; i < 3; ++i)
          if (ranks[i] != 2) rank_err(i, "a rank-2 tensor");
        break;
      case OpFamily::Mask:
        if (ranks[0] != 2) rank_err(0, "a rank-2 tensor");
        break;
      case OpFamily::RowReduce:
        if (ranks[0] != 1) rank_err(0, "a rank-1 tensor");
        if (ranks[1] != 2) rank_err(1, "a rank-2 tensor");
        break;
      case OpFamily::Copy:
      case OpFamily::Convert:
      case OpFamily::Unary:
      case OpFamily::Scale:
        if (ranks[1] != ranks[0]) rank_err(1, "a rank-" + std::to_string(ranks[0]) + " tensor (the rank of the output)");
        break;
      case OpFamily::Axpy:
        if (ranks[1] != ranks[0]) rank_err(1, "a rank-" + std::to_string(ranks[0]) + " tensor (the rank of the output)");
        if (ranks[3] != ranks[0]) rank_err(3, "a rank-" + std::to_string(ranks[0]) + " tensor (the rank of the output)");
        break;
      case OpFamily::Binary:
        if (ranks[1] != ranks[0]) rank_err(1, "a rank-" + std::to_string(ranks[0]) + " tensor (the rank of the output)");
        if (ranks[2] != ranks[0] && !(ranks[0] == 2 && ranks[2] == 1))
          rank_err(2, "a rank-" + std::to_string(ranks[0]) + " tensor or a rank-1 tensor broadcast along rows or columns");
        break;
      case OpFamily::Fill: break;
    }
  }

  // Reading or writing through a tensor needs the privilege on its root parameter.
  void check_access(const Expr& e, const TRef& t, bool write, bool read, const std::string& by) {
    auto it = privs_.find(t.root);
    if (it == privs_.end()) return;
    Privilege have = it->second;
    const Param* param = nullptr;
    for (size_t i = 0; i < t_.params.size(); ++i)
      if ((i < v_.params.size() ? v_.params[i].name.name : t_.params[i].name.name) == t.root) param = &t_.params[i];
    if (write && !writes(have)) {
      auto& d = r_.error(e.loc, by + " writes '" + t.root + "', but task '" + t_.name.name + "' has only read privilege on it");
      d.hint = "declare '" + t.root + ": rw' in task '" + t_.name.name + "' if the task modifies it";
      if (param) DiagnosticEngine::note(d, param->name.loc, "'" + t.root + "' is declared read-only here");
    } else if (read && !reads(have)) {
      auto& d = r_.error(e.loc, by + " reads '" + t.root + "', but task '" + t_.name.name + "' has only write privilege on it");
      d.hint = "declare '" + t.root + ": rw' if the task reads its old contents";
      if (param) DiagnosticEngine::note(d, param->name.loc, "'" + t.root + "' is declared write-only here");
    }
  }

  void check_launch(const Stmt& s, const TaskDecl& callee, const std::vector<LoopCtx>& loops) {
    if (!s.label.name.empty()) {
      if (p_.find_task(s.label.name)) {
        auto& d = r_.error(s.label.loc, "launch label '" + s.label.name + "' is also a task name");
        d.hint = "labels select a dispatch in call(...); pick a name that is not a task";
      } else if (auto [it, fresh] = labels_.emplace(s.label.name, s.label.loc); !fresh) {
        auto& d = r_.error(s.label.loc, "duplicate launch label '" + s.label.name + "' in variant '" + v_.name.name + "'");
        DiagnosticEngine::note(d, it->second, "'" + s.label.name + "' first labels a launch here");
      }
    }
    info_.launches.push_back({&s, callee.name.name, s.label.name});
    if (s.args.size() != callee.params.size()) {
      auto& d = r_.error(s.target.loc, "task '" + callee.name.name + "' takes " + std::to_string(callee.params.size()) +
                                           " argument(s), " + std::to_string(s.args.size()) + " given");
      DiagnosticEngine::note(d, callee.name.loc, "task '" + callee.name.name + "' is declared here");
      return;
    }
    for (size_t i = 0; i < s.args.size(); ++i) {
      const Param& prm = callee.params[i];
      const Expr& e = s.args[i];
      if (!prm.is_tensor) {
        check_scalar(e);
        continue;
      }
      TRef t = tensor_ref(e);
      if (!t.ok) continue;
      if (t.rank != static_cast<int>(prm.dims.size())) {
        auto& d = r_.error(e.loc, "rank mismatch: argument '" + format_expr(e) + "' has rank " + std::to_string(t.rank) +
                                      " but parameter '" + prm.name.name + "' of task '" + callee.name.name + "' has rank " +
                                      std::to_string(prm.dims.size()));
        DiagnosticEngine::note(d, prm.name.loc, "parameter '" + prm.name.name + "' is declared here");
        continue;
      }
      // Privilege escalation: the callee may not do more with the data than this task may.
      auto it = privs_.find(t.root);
      if (it != privs_.end()) {
        Privilege have = it->second;
        if (!may_delegate(have, prm.priv)) {
          auto& d = r_.error(e.loc, std::string("privilege escalation: task '") + t_.name.name + "' has '" +
                                        privilege_spelling(have) + "' on '" + t.root + "' but launches '" +
                                        callee.name.name + "' with '" + privilege_spelling(prm.priv) + "' on it");
          d.hint = is_reduce(have) ? std::string("a task holding '") + privilege_spelling(have) + "' can only pass on '" +
                                         privilege_spelling(have) + "'"
                                   : "a task can only pass on privileges it holds";
          DiagnosticEngine::note(d, prm.name.loc, "'" + callee.name.name + "' declares '" + prm.name.name + ": " +
                                                      privilege_spelling(prm.priv) + "' here");
        }
      }
      // A `w` tensor the task reduces into starts at the reduction's identity (ast.h may_delegate):
      // one reduction only, or there would be two identities.
      if (it != privs_.end() && it->second == Privilege::Write && is_reduce(prm.priv)) {
        auto [first, fresh] = w_reduced_.emplace(t.root, std::make_pair(prm.priv, e.loc));
        if (!fresh && first->second.first != prm.priv) {
          auto& d = r_.error(e.loc, "task '" + t_.name.name + "' has 'w' on '" + t.root + "' and reduces into it with both '" +
                                        privilege_spelling(first->second.first) + "' and '" + privilege_spelling(prm.priv) +
                                        "': it starts at the identity of one reduction");
          d.hint = "reduce into '" + t.root + "' with one of them, or hold 'rw' and initialize it yourself";
          DiagnosticEngine::note(d, first->second.second, "the first reduction into '" + t.root + "' is here");
        }
      }
      // Reductions commute, so parallel launches may reduce into overlapping pieces.
      if (writes(prm.priv) && !is_reduce(prm.priv)) check_aliasing(e, t, loops);
      for (const LoopCtx& l : loops) {
        if (!l.parallel || !l.reduced) continue;
        auto red = l.reduced->find(t.root);
        if (!is_reduce(prm.priv) && red != l.reduced->end()) {
          auto& d = r_.error(e.loc, "'" + callee.name.name + "' uses '" + t.root +
                                        "' in the same prange iteration that reduces into it, before the reduction over "
                                        "all iterations is complete");
          d.hint = "move this launch into a following prange";
          DiagnosticEngine::note(d, red->second, "the reduction into '" + t.root + "' is here");
        }
      }
      if (is_reduce(prm.priv))
        for (const LoopCtx& l : loops)
          if (l.parallel && l.reduced) l.reduced->emplace(t.root, e.loc);
    }
  }

  // A write inside a prange must go to a distinct piece per iteration: a disjoint partition indexed
  // by every prange variable, each alone (plus a constant) in its own coordinate.
  void check_aliasing(const Expr& e, const TRef& t, const std::vector<LoopCtx>& loops) {
    for (const LoopCtx& l : loops) {
      if (!l.parallel) continue;
      std::string why;
      if (t.partition.empty()) {
        why = "every iteration writes all of '" + t.root + "'";
      } else if (!t.disjoint) {
        why = "the pieces of partition '" + t.partition + "' overlap";
      } else {
        std::vector<std::string> used;
        for (const std::string& var : l.vars) {
          bool found = false;
          for (const Expr* c : t.coords) {
            const Expr* x = c;
            if (x->kind == ExprKind::Binary && x->op == '+' && x->args[1].kind == ExprKind::Int) x = &x->args[0];
            if (x->kind == ExprKind::Name && x->name == var &&
                std::find(used.begin(), used.end(), format_expr(*c)) == used.end()) {
              used.push_back(format_expr(*c));
              found = true;
              break;
            }
          }
          if (!found) {
            why = "the piece written does not depend on prange variable '" + var + "' alone";
            break;
          }
        }
      }
      if (!why.empty()) {
        auto& d = r_.error(e.loc, "aliasing writes in prange: " + why + ", so parallel iterations write the same data");
        d.hint = "index a blocks partition with the prange variables, e.g. P[i, j], use srange, or give the "
                 "parameter a red(sum) or red(max) privilege if the task only reduces into it";
        DiagnosticEngine::note(d, l.loc, "the prange is here");
      }
    }
  }

  void check_stmts(const std::vector<Stmt>& body, std::vector<LoopCtx> loops) {
    for (const Stmt& s : body) {
      switch (s.kind) {
        case StmtKind::Bind: check_bind(s); break;
        case StmtKind::Call: check_call(s, loops); break;
        case StmtKind::Loop: {
          if (!inner()) {
            auto& d = r_.error(s.loc, std::string("leaf variant '") + v_.name.name + "' cannot contain " +
                                          (s.parallel ? "prange" : "srange"));
            d.hint = "leaf operations act on whole tensors; loops belong in inner variants";
            break;
          }
          if (!s.parallel) info_.has_srange = true;
          for (const Expr& x : s.extents) check_scalar(x);
          auto saved = scope_;
          LoopCtx ctx{s.parallel, {}, s.loc, s.parallel ? std::make_shared<std::map<std::string, SourceLoc>>() : nullptr};
          for (const Ident& v : s.vars) {
            define(v, Sym{SymKind::LoopVar});
            ctx.vars.push_back(v.name);
          }
          loops.push_back(ctx);
          check_stmts(s.body, loops);
          loops.pop_back();
          scope_ = std::move(saved);
          break;
        }
      }
    }
  }

  const Program& p_;
  Reporter& r_;
  VariantInfo& info_;
  const VariantDecl& v_;
  const TaskDecl& t_;
  std::map<std::string, Sym> scope_;
  std::map<std::string, Privilege> privs_;
  std::map<std::string, std::pair<Privilege, SourceLoc>> w_reduced_;  // `w` roots reduced into: the first reduction
  std::map<std::string, SourceLoc> labels_;
};

void check_task(const TaskDecl& t, Reporter& r) {
  std::map<std::string, SourceLoc> names;
  auto claim = [&](const Ident& id, const char* what) {
    auto [it, fresh] = names.emplace(id.name, id.loc);
    if (!fresh) {
      auto& d = r.error(id.loc, std::string("duplicate ") + what + " '" + id.name + "' in task '" + t.name.name + "'");
      DiagnosticEngine::note(d, it->second, "'" + id.name + "' is first declared here");
    }
  };
  for (const Ident& tp : t.type_params) {
    if (parse_dtype(tp.name)) {
      r.error(tp.loc, "type parameter '" + tp.name + "' has the name of an element type");
      continue;
    }
    claim(tp, "type parameter");
  }
  for (const Param& p : t.params) claim(p.name, "parameter");
  std::set<std::string> dims;
  for (const Param& p : t.params) {
    if (p.is_tensor) {
      bool is_param = std::any_of(t.type_params.begin(), t.type_params.end(), [&](const Ident& i) { return i.name == p.elem.name; });
      if (!parse_dtype(p.elem.name) && !is_param) {
        std::vector<std::string> cands = {"f16", "bf16", "f32", "i32"};
        for (const Ident& i : t.type_params) cands.push_back(i.name);
        auto& d = r.error(p.elem.loc, "unknown element type '" + p.elem.name + "'");
        std::string dym = did_you_mean(p.elem.name, cands);
        d.hint = dym.empty() ? "element types are f16, bf16, f32, i32, or a type parameter declared as task " +
                                   t.name.name + "<T>(...)"
                             : dym;
      }
      for (const Ident& d : p.dims) {
        if (names.count(d.name) && !dims.count(d.name)) {
          auto& dg = r.error(d.loc, "dimension name '" + d.name + "' is already the name of a parameter or type");
          DiagnosticEngine::note(dg, names[d.name], "'" + d.name + "' is declared here");
        }
        dims.insert(d.name);
      }
    } else if (!is_scalar_type(p.elem.name)) {
      auto& d = r.error(p.elem.loc, "unknown scalar type '" + p.elem.name + "'");
      d.hint = "scalar parameters are f32, i32 or index; tensor parameters start with a privilege (r, w, rw)";
    }
  }
}

}  // namespace

void check_declarations(const Program& p, Reporter& r, std::map<std::string, VariantInfo>& variants) {
  std::map<std::string, const TaskDecl*> tasks;
  for (const TaskDecl& t : p.tasks) {
    auto [it, fresh] = tasks.emplace(t.name.name, &t);
    if (!fresh) {
      auto& d = r.error(t.name.loc, "duplicate task '" + t.name.name + "'");
      DiagnosticEngine::note(d, it->second->name.loc, "task '" + t.name.name + "' is first declared here");
      continue;
    }
    check_task(t, r);
  }
  std::vector<std::string> task_names;
  for (const TaskDecl& t : p.tasks) task_names.push_back(t.name.name);

  for (const VariantDecl& v : p.variants) {
    if (variants.count(v.name.name)) {
      auto& d = r.error(v.name.loc, "duplicate variant '" + v.name.name + "'");
      DiagnosticEngine::note(d, variants[v.name.name].decl->name.loc, "variant '" + v.name.name + "' is first declared here");
      continue;
    }
    auto tit = tasks.find(v.task.name);
    VariantInfo& info = variants[v.name.name];
    info.decl = &v;
    info.valid = false;
    if (tit == tasks.end()) {
      auto& d = r.error(v.task.loc, "variant '" + v.name.name + "' implements unknown task '" + v.task.name + "'");
      d.hint = did_you_mean(v.task.name, task_names);
      continue;
    }
    const TaskDecl& t = *tit->second;
    // The variant's signature must be the task's.
    bool same = v.params.size() == t.params.size();
    for (size_t i = 0; same && i < v.params.size(); ++i) same = v.params[i].name.name == t.params[i].name.name;
    if (!same) {
      std::string want, got;
      for (const Param& pr : t.params) want += (want.empty() ? "" : ", ") + pr.name.name;
      for (const VariantParam& vp : v.params) got += (got.empty() ? "" : ", ") + vp.name.name;
      auto& d = r.error(v.name.loc, "signature of variant '" + v.name.name + "' differs from task '" + t.name.name +
                                        "': expected (" + want + "), found (" + got + ")");
      d.hint = "every variant of a task has the task's parameters, in order";
      DiagnosticEngine::note(d, t.name.loc, "task '" + t.name.name + "' is declared here");
      continue;
    }
    bool priv_ok = true;
    for (size_t i = 0; i < v.params.size(); ++i) {
      if (v.params[i].priv && *v.params[i].priv != t.params[i].priv) {
        priv_ok = false;
        auto& d = r.error(v.params[i].priv_loc, std::string("variant '") + v.name.name + "' declares '" +
                                                    v.params[i].name.name + ": " + privilege_spelling(*v.params[i].priv) +
                                                    "' but task '" + t.name.name + "' declares '" +
                                                    privilege_spelling(t.params[i].priv) + "'");
        DiagnosticEngine::note(d, t.params[i].name.loc, "the task's parameter is declared here");
      } else if (v.params[i].priv && !t.params[i].is_tensor) {
        priv_ok = false;
        r.error(v.params[i].priv_loc, "'" + v.params[i].name.name + "' is a scalar parameter and has no privilege");
      }
    }
    if (!priv_ok) continue;
    // Tunables.
    std::set<std::string> taken;
    for (const Param& pr : t.params) {
      taken.insert(pr.name.name);
      for (const Ident& d : pr.dims) taken.insert(d.name);
    }
    std::map<std::string, SourceLoc> tun;
    for (const Ident& tu : v.tunables) {
      if (taken.count(tu.name)) {
        r.error(tu.loc, "tunable '" + tu.name + "' has the name of a parameter or dimension of task '" + t.name.name + "'");
      } else if (!tun.emplace(tu.name, tu.loc).second) {
        auto& d = r.error(tu.loc, "duplicate tunable '" + tu.name + "'");
        DiagnosticEngine::note(d, tun[tu.name], "first declared here");
      }
    }
    for (const Ident& pr : v.processors) {
      if (!parse_proc(pr.name)) {
        auto& d = r.error(pr.loc, "unknown processor level '" + pr.name + "'");
        d.hint = "levels are HOST, CLUSTER, BLOCK, WARPGROUP, WARP, THREAD";
      } else if (pr.name == "HOST" && v.kind == VariantKind::Leaf) {
        r.error(pr.loc, "leaf variant '" + v.name.name + "' cannot run on HOST: leaf code runs on the device");
      }
    }
    info.task = &t;
    info.valid = true;
    BodyChecker(p, r, info).run();
  }
}

}  // namespace loom::check_detail
