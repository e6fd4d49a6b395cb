// Contraction recognition and fusion. See recognize.h.
#include "tx/recognize.h"

#include <algorithm>
#include <optional>
#include <sstream>

namespace loom::tx {
namespace {

const Expr& strip_casts(const Expr& e) {
  const Expr* x = &e;
  while (x->kind == Expr::Kind::Call && is_cast(x->name) && x->args.size() == 1) x = &x->args[0];
  return *x;
}

std::optional<Pointwise> pointwise_fn(const std::string& f) {
  if (f == "relu") return Pointwise::Relu;
  if (f == "gelu") return Pointwise::Gelu;
  if (f == "silu") return Pointwise::Silu;
  if (f == "sigmoid") return Pointwise::Sigmoid;
  if (f == "exp") return Pointwise::Exp;
  return std::nullopt;
}

struct Operand {
  const Expr* access = nullptr;  // the tensor element
  Pointwise prologue = Pointwise::Identity;
};

// `A[..]`, a cast of it, or one pointwise function (or negation) of it.
std::optional<Operand> operand(const Expr& e) {
  const Expr& x = strip_casts(e);
  if (x.kind == Expr::Kind::Access) return Operand{&x, Pointwise::Identity};
  const Expr* inner = nullptr;
  Pointwise p = Pointwise::Identity;
  if (x.kind == Expr::Kind::Neg) {
    p = Pointwise::Neg;
    inner = &x.args[0];
  } else if (x.kind == Expr::Kind::Call && pointwise_fn(x.name)) {
    p = *pointwise_fn(x.name);
    inner = &x.args[0];
  }
  if (!inner) return std::nullopt;
  const Expr& y = strip_casts(*inner);
  if (y.kind != Expr::Kind::Access) return std::nullopt;
  return Operand{&y, p};
}

struct Contraction {
  int assign = -1;
  int target = -1;
  std::vector<int> batch;  // loops
  int mi = -1, ni = -1, ki = -1;
  TxTerm term;
};

struct Kernel {
  ContractionKernel k;
  int result = -1;              // the tensor holding the kernel's current result
  std::vector<int> batch;
  int mi = -1, ni = -1;
  std::vector<int> statements;
  bool alive = true;
  bool has_epilogue = false;
};

class Recognizer {
 public:
  Recognizer(const Model& m, std::string name, std::string file) : m_(m), name_(std::move(name)), file_(std::move(file)) {}

  Recognition run() {
    reasons_.assign(m_.assigns.size(), "");
    used_.assign(m_.assigns.size(), false);
    std::vector<Contraction> cs;
    for (size_t a = 0; a < m_.assigns.size(); ++a) {
      std::string why;
      if (auto c = contraction(static_cast<int>(a), why)) cs.push_back(*c);
      else reasons_[a] = "not a contraction: " + why;
    }
    group(cs);
    for (Kernel& k : kernels_) prologues(k);
    for (Kernel& k : kernels_)
      if (k.alive) epilogues(k);
    Recognition r;
    for (Kernel& k : kernels_) {
      if (!k.alive) continue;
      std::sort(k.statements.begin(), k.statements.end());
      r.kernels.push_back(k.k);
      r.statements.push_back(k.statements);
    }
    const bool one = r.kernels.size() == 1;
    for (ContractionKernel& k : r.kernels) k.name = one ? name_ : name_ + "_" + k.out.name;
    for (size_t a = 0; a < m_.assigns.size(); ++a)
      if (!used_[a]) r.rejected.push_back({static_cast<int>(a), reasons_[a]});
    return r;
  }

 private:
  const Model& m_;
  std::string name_, file_;
  std::vector<std::string> reasons_;
  std::vector<bool> used_;
  std::vector<Kernel> kernels_;

  // The loops an access's indices are, when every index is one loop index.
  std::optional<std::vector<int>> index_loops(const Expr& access) const {
    std::vector<int> out;
    for (const Expr& i : access.args) {
      auto it = m_.loop_of.find(&i);
      if (i.kind != Expr::Kind::Name || it == m_.loop_of.end()) return std::nullopt;
      out.push_back(it->second);
    }
    return out;
  }
  const Stmt& loop(int l) const { return *m_.loops[l].stmt; }
  std::string extent(int l) const { return print_expr(loop(l).extent); }
  int tensor(const Expr& access) const { return m_.tensor_of.at(&access); }

  // Whether dimension d of tensor t is declared with loop l's extent.
  bool extent_matches(int t, size_t d, int l) const {
    const auto& ex = m_.tensors[t].decl->extents;
    return d < ex.size() && same(ex[d], loop(l).extent);
  }

  TxOperand make_operand(const Operand& o, bool transposed) const {
    TxOperand out;
    const TensorInfo& t = m_.tensors[tensor(*o.access)];
    out.name = t.name;
    out.dtype = t.dtype;
    out.transposed = transposed;
    out.prologue = o.prologue;
    return out;
  }

  std::optional<Contraction> contraction(int a, std::string& why) const {
    const AssignInfo& info = m_.assigns[a];
    const Stmt& s = *info.stmt;
    if (!s.accumulate) {
      why = "it assigns with `=` (a contraction accumulates with `+=`)";
      return std::nullopt;
    }
    const Expr& rhs = strip_casts(s.rhs);
    if (rhs.kind != Expr::Kind::Binary || rhs.op != '*') {
      why = "its right side is not a product of two tensor elements";
      return std::nullopt;
    }
    auto x = operand(rhs.args[0]), y = operand(rhs.args[1]);
    if (!x || !y) {
      why = "a factor of its product is not a tensor element (or one pointwise function of one)";
      return std::nullopt;
    }
    auto out = index_loops(s.lhs), xi = index_loops(*x->access), yi = index_loops(*y->access);
    if (!out || !xi || !yi) {
      why = "an index is not a plain loop index";
      return std::nullopt;
    }
    if (out->size() < 2) {
      why = "its result has rank " + std::to_string(out->size()) + " (a contraction writes a matrix, or a batch of them)";
      return std::nullopt;
    }
    std::vector<int> seq;
    for (int l : info.loops) {
      const bool in_out = std::count(out->begin(), out->end(), l) > 0;
      if (loop(l).par && !in_out) {
        why = "`par` loop '" + loop(l).var + "' does not index the result";
        return std::nullopt;
      }
      if (!loop(l).par && in_out) {
        why = "the result is indexed by the `seq` loop '" + loop(l).var + "'";
        return std::nullopt;
      }
      if (!loop(l).par) seq.push_back(l);
    }
    if (seq.size() != 1) {
      why = seq.empty() ? "no `seq` loop reduces it" : "it reduces over more than one `seq` loop";
      return std::nullopt;
    }
    if (static_cast<size_t>(std::count_if(out->begin(), out->end(), [&](int l) { return std::count(out->begin(), out->end(), l) == 1; })) != out->size() ||
        out->size() + 1 != info.loops.size()) {
      why = "the result is not indexed by each enclosing `par` loop exactly once";
      return std::nullopt;
    }
    Contraction c;
    c.assign = a;
    c.target = info.target;
    c.ki = seq[0];
    c.batch.assign(out->begin(), out->end() - 2);
    c.mi = (*out)[out->size() - 2];
    c.ni = out->back();
    const size_t nb = c.batch.size();
    // Which factor holds i (the A operand) and which j (the B operand).
    auto holds = [&](const std::vector<int>& v, int l) { return std::count(v.begin(), v.end(), l) > 0; };
    if (holds(*xi, c.ni) && holds(*yi, c.mi)) {
      std::swap(x, y);
      std::swap(xi, yi);
    }
    auto shape = [&](const std::vector<int>& v, int first, int second, bool& transposed) {
      if (v.size() != nb + 2 || !std::equal(c.batch.begin(), c.batch.end(), v.begin())) return false;
      if (v[nb] == first && v[nb + 1] == second) transposed = false;
      else if (v[nb] == second && v[nb + 1] == first) transposed = true;
      else return false;
      return true;
    };
    bool ta = false, tb = false;
    if (!shape(*xi, c.mi, c.ki, ta)) {
      why = "the first factor " + print_expr(*x->access) + " is not indexed [batch.., " + loop(c.mi).var + ", " + loop(c.ki).var + "] (or transposed)";
      return std::nullopt;
    }
    if (!shape(*yi, c.ki, c.ni, tb)) {
      why = "the second factor " + print_expr(*y->access) + " is not indexed [batch.., " + loop(c.ki).var + ", " + loop(c.ni).var + "] (or transposed)";
      return std::nullopt;
    }
    auto check_extents = [&](const Expr& acc, const std::vector<int>& v) {
      for (size_t d = 0; d < v.size(); ++d)
        if (!extent_matches(tensor(acc), d, v[d])) return false;
      return true;
    };
    if (!check_extents(s.lhs, *out) || !check_extents(*x->access, *xi) || !check_extents(*y->access, *yi)) {
      why = "a tensor's declared extents differ from the extents of the loops that index it";
      return std::nullopt;
    }
    c.term.a = make_operand(*x, ta);
    c.term.b = make_operand(*y, tb);
    c.term.k = extent(c.ki);
    return c;
  }

  bool same_dims(const Kernel& k, const std::vector<int>& batch, int mi, int ni) const {
    if (batch.size() != k.batch.size()) return false;
    for (size_t i = 0; i < batch.size(); ++i)
      if (extent(batch[i]) != extent(k.batch[i])) return false;
    return extent(mi) == extent(k.mi) && extent(ni) == extent(k.ni);
  }

  void group(const std::vector<Contraction>& cs) {
    for (const Contraction& c : cs) {
      Kernel* into = nullptr;
      for (Kernel& k : kernels_)
        if (k.result == c.target) into = &k;
      if (into && !same_dims(*into, c.batch, c.mi, c.ni)) {
        reasons_[c.assign] = "not a contraction: it accumulates into '" + m_.tensors[c.target].name +
                             "' with other loop extents than the contraction before it";
        continue;
      }
      if (!into) {
        kernels_.emplace_back();
        into = &kernels_.back();
        into->result = c.target;
        into->batch = c.batch;
        into->mi = c.mi;
        into->ni = c.ni;
        ContractionKernel& k = into->k;
        const SourceLoc& l = m_.assigns[c.assign].stmt->loc;
        k.loc = {file_, static_cast<int>(l.line), static_cast<int>(l.col)};
        for (int b : c.batch) k.batch.push_back(extent(b));
        k.m = extent(c.mi);
        k.n = extent(c.ni);
        k.out.name = m_.tensors[c.target].name;
        k.out.dtype = m_.tensors[c.target].dtype;
      }
      into->k.terms.push_back(c.term);
      into->statements.push_back(c.assign);
      used_[c.assign] = true;
    }
    // `X[..] = 0` before the first contraction into X is its initialization.
    for (Kernel& k : kernels_) {
      const int first = k.statements.front();
      for (int a = 0; a < first; ++a) {
        const AssignInfo& info = m_.assigns[a];
        const Expr& r = info.stmt->rhs;
        const bool zero = (r.kind == Expr::Kind::Int && r.ival == 0) || (r.kind == Expr::Kind::Float && r.fval == 0);
        if (info.target == k.result && !info.stmt->accumulate && zero && !used_[a]) {
          used_[a] = true;
          k.statements.push_back(a);
        }
      }
    }
  }

  // Assignments (other than `except`) that read tensor t.
  std::vector<int> readers(int t) const {
    std::vector<int> out;
    for (size_t a = 0; a < m_.assigns.size(); ++a)
      for (const Expr* r : m_.assigns[a].reads)
        if (tensor(*r) == t) {
          out.push_back(static_cast<int>(a));
          break;
        }
    return out;
  }
  // Readers of t that are not kernel k's own statements.
  size_t outside_readers(const Kernel& k, int t) const {
    size_t n = 0;
    for (int a : readers(t)) n += std::count(k.statements.begin(), k.statements.end(), a) == 0;
    return n;
  }
  std::vector<int> writers(int t) const {
    std::vector<int> out;
    for (size_t a = 0; a < m_.assigns.size(); ++a)
      if (m_.assigns[a].target == t) out.push_back(static_cast<int>(a));
    return out;
  }

  // A pointwise statement: `=`, every enclosing loop par and indexing the result once.
  bool pointwise(int a, std::vector<int>* out_loops = nullptr) const {
    const AssignInfo& info = m_.assigns[a];
    if (info.stmt->accumulate) return false;
    auto out = index_loops(info.stmt->lhs);
    if (!out || out->size() != info.loops.size()) return false;
    for (int l : info.loops)
      if (!loop(l).par || std::count(out->begin(), out->end(), l) != 1) return false;
    if (out_loops) *out_loops = *out;
    return true;
  }

  void prologues(Kernel& k) {
    for (TxTerm& term : k.k.terms)
      for (TxOperand* op : {&term.a, &term.b}) {
        const int t = m_.find_tensor(op->name);
        if (m_.tensors[t].role != Role::New || op->prologue != Pointwise::Identity) continue;
        std::vector<int> w = writers(t), r = readers(t);
        if (w.size() != 1 || !pointwise(w[0])) continue;
        const bool only_contractions = std::all_of(r.begin(), r.end(), [&](int a) {
          return std::count(k.statements.begin(), k.statements.end(), a) > 0;
        });
        if (!only_contractions) {
          reasons_[w[0]] = "a pointwise producer of '" + op->name + "', not fused as a prologue: other statements read '" + op->name + "' too";
          continue;
        }
        const Stmt& s = *m_.assigns[w[0]].stmt;
        auto src = operand(s.rhs);
        if (!src || index_loops(*src->access) != index_loops(s.lhs)) {
          reasons_[w[0]] = "a pointwise producer of '" + op->name + "', not fused as a prologue: it does not read one element at its own indices";
          continue;
        }
        const TensorInfo& y = m_.tensors[tensor(*src->access)];
        op->name = y.name;
        op->dtype = y.dtype;
        op->prologue = src->prologue;
        used_[w[0]] = true;
        k.statements.push_back(w[0]);
      }
  }

  // The leaves of a sum (a + b + ..., casts removed).
  static void sum_leaves(const Expr& e, std::vector<const Expr*>& out) {
    const Expr& x = strip_casts(e);
    if (x.kind == Expr::Kind::Binary && x.op == '+') {
      sum_leaves(x.args[0], out);
      sum_leaves(x.args[1], out);
    } else {
      out.push_back(&x);
    }
  }

  void epilogues(Kernel& k) {
    while (true) {
      const int r = k.result;
      std::vector<int> consumers;
      for (int a : readers(r))
        if (!std::count(k.statements.begin(), k.statements.end(), a)) consumers.push_back(a);
      if (consumers.empty()) return;
      const int c = consumers.front();
      if (used_[c]) return;
      const auto fail = [&](const std::string& why) {
        reasons_[c] = "not fused into the epilogue of the contraction into '" + m_.tensors[r].name + "': " + why;
      };
      if (m_.tensors[r].role != Role::New && m_.assigns[c].target != r) return fail("'" + m_.tensors[r].name + "' is an output; only an in-place update of it can be fused");
      if (consumers.size() != 1 && m_.tensors[r].role == Role::New) return fail("more than one statement reads '" + m_.tensors[r].name + "'");
      if (k.k.activation != Pointwise::Identity) return fail("the epilogue already ends with an activation");
      std::vector<int> lhs_loops;
      if (!pointwise(c, &lhs_loops)) return fail("it is not pointwise (`=` under `par` loops that each index its result once)");
      if (lhs_loops.size() != k.batch.size() + 2 || !same_dims(k, std::vector<int>(lhs_loops.begin(), lhs_loops.end() - 2),
                                                              lhs_loops[lhs_loops.size() - 2], lhs_loops.back()))
        return fail("its result does not have the contraction's shape");
      const Stmt& s = *m_.assigns[c].stmt;
      const Expr* body = &strip_casts(s.rhs);
      Pointwise act = Pointwise::Identity;
      if (body->kind == Expr::Kind::Call && pointwise_fn(body->name)) {
        act = *pointwise_fn(body->name);
        body = &strip_casts(body->args[0]);
      }
      std::vector<const Expr*> leaves;
      sum_leaves(*body, leaves);
      Kernel next = k;
      int results = 0;
      std::vector<Kernel*> merged;
      for (const Expr* leaf : leaves) {
        if (leaf->kind != Expr::Kind::Access) return fail("the term " + print_expr(*leaf) + " is not a tensor element");
        auto li = index_loops(*leaf);
        const int t = tensor(*leaf);
        if (t == r && li == lhs_loops) {
          ++results;
          continue;
        }
        if (li && li->size() == 1 && li->front() == lhs_loops.back() && !next.k.bias && !next.has_epilogue) {
          next.k.bias = TxOperand{m_.tensors[t].name, m_.tensors[t].dtype, false, Pointwise::Identity};
          continue;
        }
        if (li == lhs_loops) {
          // Another contraction's result (a `new` read only here) joins as a second term.
          Kernel* other = nullptr;
          for (Kernel& o : kernels_)
            if (&o != &k && o.alive && o.result == t && m_.tensors[t].role == Role::New && !o.has_epilogue &&
                outside_readers(o, t) == 1 && same_dims(k, o.batch, o.mi, o.ni))
              other = &o;
          if (other && !next.has_epilogue && std::find(merged.begin(), merged.end(), other) == merged.end()) {
            for (const TxTerm& term : other->k.terms) next.k.terms.push_back(term);
            for (int a : other->statements) next.statements.push_back(a);
            merged.push_back(other);
            continue;
          }
          if (!next.k.residual && t != r) {
            next.k.residual = TxOperand{m_.tensors[t].name, m_.tensors[t].dtype, false, Pointwise::Identity};
            continue;
          }
        }
        return fail("the term " + print_expr(*leaf) + " is neither the result, a bias indexed by '" + loop(lhs_loops.back()).var +
                    "', a residual at the result's indices nor a second contraction's result");
      }
      if (results != 1) return fail(results ? "it reads the result more than once" : "it does not read the result at its own indices");
      next.k.activation = act;
      next.has_epilogue = true;
      next.result = m_.assigns[c].target;
      next.k.out.name = m_.tensors[next.result].name;
      next.k.out.dtype = m_.tensors[next.result].dtype;
      next.statements.push_back(c);
      for (Kernel* o : merged) o->alive = false;
      used_[c] = true;
      k = std::move(next);
    }
  }
};

}  // namespace

Recognition recognize_contractions(const Model& m, const std::string& name, const std::string& file) {
  return Recognizer(m, name, file).run();
}

std::string format_recognition(const Model& m, const Recognition& r) {
  std::ostringstream o;
  for (size_t i = 0; i < r.kernels.size(); ++i) {
    o << "kernel " << describe(r.kernels[i]) << "\n  from the statements on lines";
    for (int a : r.statements[i]) o << " " << m.assigns[a].stmt->loc.line;
    o << "\n";
  }
  for (const Recognition::Rejected& x : r.rejected) {
    const Stmt& s = *m.assigns[x.assign].stmt;
    o << "line " << s.loc.line << ": " << print_expr(s.lhs) << (s.accumulate ? " += " : " = ") << print_expr(s.rhs) << "\n  "
      << x.reason << "\n";
  }
  if (r.kernels.empty() && r.rejected.empty()) o << "no statements\n";
  return o.str();
}

}  // namespace loom::tx
