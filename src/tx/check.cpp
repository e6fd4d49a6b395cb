// Semantic check of a tensor-expression program. See check.h.
#include "tx/check.h"

#include <algorithm>
#include <set>

namespace loom::tx {

int Model::find_tensor(const std::string& name) const {
  for (size_t t = 0; t < tensors.size(); ++t)
    if (tensors[t].name == name) return static_cast<int>(t);
  return -1;
}

std::optional<int64_t> constant_value(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Int: return e.ival;
    case Expr::Kind::Neg: {
      auto v = constant_value(e.args[0]);
      if (!v || *v == INT64_MIN) return std::nullopt;
      return -*v;
    }
    case Expr::Kind::Binary: {
      auto a = constant_value(e.args[0]), b = constant_value(e.args[1]);
      if (!a || !b) return std::nullopt;
      int64_t r = 0;
      switch (e.op) {
        case '+': if (__builtin_add_overflow(*a, *b, &r)) return std::nullopt; return r;
        case '-': if (__builtin_sub_overflow(*a, *b, &r)) return std::nullopt; return r;
        case '*': if (__builtin_mul_overflow(*a, *b, &r)) return std::nullopt; return r;
        case '/':
        case '%': {
          if (*b <= 0) return std::nullopt;
          int64_t q = *a / *b, m = *a % *b;
          if (m < 0) { q -= 1; m += *b; }  // floor division, non-negative remainder
          return e.op == '/' ? q : m;
        }
      }
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

namespace {

// Constants in indices stay far from 64-bit overflow in ISL and in the interpreter.
constexpr int64_t kMaxConstant = int64_t(1) << 40;

class Checker {
 public:
  Checker(const TxProgram& p, DiagnosticEngine& diag) : diag_(diag) { m_.program = &p; }

  std::optional<Model> run() {
    block(m_.program->items, -1, {}, true);
    if (diag_.has_errors()) return std::nullopt;
    return std::move(m_);
  }

 private:
  DiagnosticEngine& diag_;
  Model m_;
  std::vector<int> visible_;       // tensors in scope
  std::vector<int> loop_scope_;    // loops in scope (outermost first)

  bool is_size(const std::string& n) const {
    return std::find(m_.sizes.begin(), m_.sizes.end(), n) != m_.sizes.end();
  }
  int visible_tensor(const std::string& n) const {
    for (int t : visible_) if (m_.tensors[t].name == n) return t;
    return -1;
  }
  int loop_named(const std::string& n) const {
    for (int l : loop_scope_) if (m_.loop_var(l) == n) return l;
    return -1;
  }

  void block(const std::vector<Stmt>& items, int parent, std::vector<int> position, bool top) {
    const size_t tensors_before = visible_.size();
    int index = 0;
    for (const Stmt& s : items) {
      if (diag_.too_many()) return;
      std::vector<int> pos = position;
      pos.push_back(index++);
      switch (s.kind) {
        case Stmt::Kind::Decl: decl(s, top); break;
        case Stmt::Kind::Loop: loop(s, parent, pos); break;
        case Stmt::Kind::Assign: assign(s, pos); break;
      }
    }
    visible_.resize(tensors_before);
  }

  void decl(const Stmt& s, bool top) {
    if (int t = m_.find_tensor(s.name); t >= 0) {
      auto& d = diag_.error(s.name_loc, "tensor '" + s.name + "' is declared twice");
      DiagnosticEngine::note(d, m_.tensors[t].decl->name_loc, "the first declaration is here");
      d.hint = "tensor names are unique in a program, even in different loops";
      return;
    }
    if (is_size(s.name) || loop_named(s.name) >= 0) {
      diag_.error(s.name_loc, "'" + s.name + "' is already a " + (is_size(s.name) ? "size symbol" : "loop index") +
                                   " and cannot name a tensor");
      return;
    }
    for (const Expr& e : s.extents) extent(e, top && s.role != Role::New, "a tensor extent");
    TensorInfo info;
    info.name = s.name;
    info.role = s.role;
    info.dtype = s.dtype;
    info.decl = &s;
    info.loops = loop_scope_;
    m_.tensors.push_back(info);
    visible_.push_back(static_cast<int>(m_.tensors.size()) - 1);
  }

  // An extent: a size symbol, a constant, or quasi-affine in size symbols. Declarations of `in` and
  // `out` tensors introduce the size symbols they name.
  void extent(const Expr& e, bool introduces, const char* what) {
    if (e.kind == Expr::Kind::Name && introduces && !is_size(e.name) && m_.find_tensor(e.name) < 0 &&
        loop_named(e.name) < 0) {
      m_.sizes.push_back(e.name);
      return;
    }
    if (e.kind == Expr::Kind::Name && !is_size(e.name)) {
      auto& d = diag_.error(e.loc, "'" + e.name + "' in " + what + " is not a size symbol");
      d.hint = "size symbols are introduced by the extents of `in` and `out` tensors";
      return;
    }
    if (e.kind == Expr::Kind::Int && e.ival <= 0) {
      diag_.error(e.loc, std::string(what) + " must be positive, found " + std::to_string(e.ival));
      return;
    }
    affine(e, e, /*loops_allowed=*/false);
  }

  void loop(const Stmt& s, int parent, const std::vector<int>& pos) {
    (void)pos;
    extent(s.extent, false, "a loop extent");
    if (loop_named(s.var) >= 0) {
      auto& d = diag_.error(s.name_loc, "loop index '" + s.var + "' hides the enclosing loop's index of the same name");
      DiagnosticEngine::note(d, m_.loops[loop_named(s.var)].stmt->name_loc, "the enclosing loop is here");
      return;
    }
    if (is_size(s.var) || visible_tensor(s.var) >= 0) {
      diag_.error(s.name_loc, "'" + s.var + "' is already a " + (is_size(s.var) ? "size symbol" : "tensor") +
                                  " and cannot name a loop index");
      return;
    }
    m_.loops.push_back({&s, parent});
    const int id = static_cast<int>(m_.loops.size()) - 1;
    loop_scope_.push_back(id);
    block(s.body, id, pos, false);
    loop_scope_.pop_back();
  }

  void assign(const Stmt& s, const std::vector<int>& pos) {
    AssignInfo a;
    a.stmt = &s;
    a.loops = loop_scope_;
    a.position = pos;
    a.target = access(s.lhs, a);
    if (a.target >= 0 && m_.tensors[a.target].role == Role::In) {
      auto& d = diag_.error(s.lhs.loc, "'" + s.lhs.name + "' is an input (`in`) and cannot be written");
      DiagnosticEngine::note(d, m_.tensors[a.target].decl->name_loc, "declared here");
      d.hint = "declare it `out`, or write a `new` buffer";
    }
    if (s.accumulate) a.reads.push_back(&s.lhs);
    value(s.rhs, a);
    m_.assigns.push_back(std::move(a));
  }

  // A tensor element; returns the tensor or -1.
  int access(const Expr& e, AssignInfo& a) {
    int t = visible_tensor(e.name);
    if (t < 0) {
      if (int u = m_.find_tensor(e.name); u >= 0) {
        auto& d = diag_.error(e.loc, "buffer '" + e.name + "' is not visible here");
        DiagnosticEngine::note(d, m_.tensors[u].decl->name_loc, "it is declared here, in another block");
      } else if (is_size(e.name) || loop_named(e.name) >= 0) {
        diag_.error(e.loc, "'" + e.name + "' is a " + std::string(is_size(e.name) ? "size symbol" : "loop index") +
                               ", not a tensor");
      } else {
        auto& d = diag_.error(e.loc, "unknown tensor '" + e.name + "'");
        d.hint = "declare it with `in`, `out` or `new` before its first use";
      }
      for (const Expr& i : e.args) affine(i, e, true);
      return -1;
    }
    const Stmt& decl = *m_.tensors[t].decl;
    if (e.args.size() != decl.extents.size()) {
      auto& d = diag_.error(e.loc, "'" + e.name + "' has rank " + std::to_string(decl.extents.size()) + " but is indexed with " +
                                       std::to_string(e.args.size()) + " ind" + (e.args.size() == 1 ? "ex" : "ices"));
      DiagnosticEngine::note(d, decl.name_loc, "declared here");
    }
    for (const Expr& i : e.args) affine(i, e, true);
    m_.tensor_of[&e] = t;
    (void)a;
    return t;
  }

  // A value expression (fp32 arithmetic over tensor elements, literals, loop indices and sizes).
  void value(const Expr& e, AssignInfo& a) {
    switch (e.kind) {
      case Expr::Kind::Int:
      case Expr::Kind::Float:
      case Expr::Kind::Inf: return;
      case Expr::Kind::Name:
        if (int l = loop_named(e.name); l >= 0) {
          m_.loop_of[&e] = l;
        } else if (!is_size(e.name)) {
          if (visible_tensor(e.name) >= 0) {
            auto& d = diag_.error(e.loc, "tensor '" + e.name + "' is used without indices");
            d.hint = "write one element, e.g. " + e.name + "[i, j]";
          } else {
            diag_.error(e.loc, "unknown name '" + e.name + "'");
          }
        }
        return;
      case Expr::Kind::Access:
        if (access(e, a) >= 0) a.reads.push_back(&e);
        return;
      case Expr::Kind::Call: {
        const int arity = function_arity(e.name);
        if (arity == 0) {
          auto& d = diag_.error(e.loc, "unknown function '" + e.name + "'");
          d.hint = "the functions are relu, gelu, silu, sigmoid, exp, log, sqrt, rsqrt, tanh, abs, max, min and the casts bf16, f16, f32";
        } else if (static_cast<int>(e.args.size()) != arity) {
          diag_.error(e.loc, "'" + e.name + "' takes " + std::to_string(arity) + " argument" + (arity == 1 ? "" : "s") +
                                 ", found " + std::to_string(e.args.size()));
        }
        for (const Expr& x : e.args) value(x, a);
        return;
      }
      case Expr::Kind::Neg: value(e.args[0], a); return;
      case Expr::Kind::Binary:
        if (e.op == '%') {
          auto& d = diag_.error(e.loc, "'%' applies to indices, not to values");
          d.hint = "use it inside a tensor's brackets";
        }
        value(e.args[0], a);
        value(e.args[1], a);
        return;
    }
  }

  // A quasi-affine expression over loop indices (when allowed) and size symbols; `whole` is the
  // access (or extent) it belongs to, for the message.
  bool affine(const Expr& e, const Expr& whole, bool loops_allowed) {
    const std::string where = whole.kind == Expr::Kind::Access ? " in " + print_expr(whole) : "";
    switch (e.kind) {
      case Expr::Kind::Int:
        if (e.ival > kMaxConstant) {
          diag_.error(e.loc, "constant " + std::to_string(e.ival) + " is too large for an index (at most 2^40)");
          return false;
        }
        return true;
      case Expr::Kind::Float:
      case Expr::Kind::Inf:
        diag_.error(e.loc, "an index must be an integer, found " + print_expr(e) + where);
        return false;
      case Expr::Kind::Name:
        if (int l = loop_named(e.name); l >= 0) {
          if (!loops_allowed) {
            diag_.error(e.loc, "loop index '" + e.name + "' cannot appear in an extent; extents are size symbols and constants");
            return false;
          }
          m_.loop_of[&e] = l;
          return true;
        }
        if (is_size(e.name)) return true;
        if (visible_tensor(e.name) >= 0) {
          diag_.error(e.loc, "tensor '" + e.name + "' used as an index" + where);
          return false;
        }
        diag_.error(e.loc, "unknown name '" + e.name + "'" + where);
        return false;
      case Expr::Kind::Access: {
        auto& d = diag_.error(e.loc, "non-affine index: indirect access " + print_expr(e) + where);
        d.hint = "indices are quasi-affine in loop indices and size symbols; a tensor's value cannot be an index";
        return false;
      }
      case Expr::Kind::Call:
        diag_.error(e.loc, "non-affine index: function call " + print_expr(e) + where);
        return false;
      case Expr::Kind::Neg: return affine(e.args[0], whole, loops_allowed);
      case Expr::Kind::Binary: {
        if (e.op == '+' || e.op == '-')
          return affine(e.args[0], whole, loops_allowed) & affine(e.args[1], whole, loops_allowed);
        if (e.op == '*') {
          bool ok = affine(e.args[0], whole, loops_allowed) & affine(e.args[1], whole, loops_allowed);
          if (ok && !constant_value(e.args[0]) && !constant_value(e.args[1])) {
            auto& d = diag_.error(e.loc, "non-affine index: " + print_expr(e) + " multiplies two non-constant expressions" + where);
            d.hint = "an index may multiply by integer constants only (size symbols are not constants)";
            return false;
          }
          return ok;
        }
        bool ok = affine(e.args[0], whole, loops_allowed);
        auto c = constant_value(e.args[1]);
        if (!c || *c <= 0) {
          auto& d = diag_.error(e.args[1].loc, std::string("non-affine index: ") + (e.op == '/' ? "division" : "mod") + " by " +
                                                   print_expr(e.args[1]) + ", which is not a positive constant" + where);
          d.hint = "floor-division and mod take a positive integer constant on the right";
          return false;
        }
        return ok;
      }
    }
    return false;
  }
};

}  // namespace

std::optional<Model> check_tx(const TxProgram& p, DiagnosticEngine& diag) { return Checker(p, diag).run(); }

}  // namespace loom::tx
