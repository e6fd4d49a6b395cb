// The sequential reference interpreter. See reference.h.
#include "exec/reference.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

namespace loom::exec {
namespace {

// An error that already carries its location and context (inner frames add none).
struct Located : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Scalar {
  bool is_int = true;
  int64_t i = 0;
  double f = 0;
  double d() const { return is_int ? static_cast<double>(i) : f; }
  static Scalar of_int(int64_t v) { return {true, v, 0}; }
  static Scalar of_double(double v) { return {false, 0, v}; }
};

struct TVal {
  View view;
  bool replicated = false;  // a replicated row piece (rank-1 mma partition held by a WARP)
};

struct Part {
  enum Kind { Blocks, Slices, Mma } kind = Blocks;
  View src;
  std::vector<int64_t> block;  // Blocks (0 = whole dimension)
  int dim = 0;                 // Slices
  MmaRole role = MmaRole::Acc;  // Mma
  bool transposed = false;      // Mma
  ProcKind holder = ProcKind::Warp;
  bool replicated = false;
  std::vector<int64_t> counts;
};

struct Env {
  std::map<std::string, Scalar> scalars;
  std::map<std::string, TVal> tensors;
  std::map<std::string, Part> parts;
  std::map<std::string, DType> types;
};

struct RtArg {
  bool is_tensor = true;
  TVal t;
  Scalar s;
};

// Launches already run in one execution of a prange (replicated row pieces run once per quad).
struct PrangeCtx {
  std::set<std::vector<int64_t>> seen;
};

std::string shape_str(const std::vector<int64_t>& e) {
  std::string s = "[";
  for (size_t i = 0; i < e.size(); ++i) s += (i ? ", " : "") + std::to_string(e[i]);
  return s + "]";
}

std::string at(SourceLoc loc) {
  return loc.valid() ? "line " + std::to_string(loc.line) + ":" + std::to_string(loc.col) : std::string("?");
}

class Interp {
 public:
  explicit Interp(const Program& p) : p_(p) {
    if (!p.mapping) throw std::runtime_error("reference: the program has no mapping");
    for (const Instance& in : p.mapping->instances) instances_.emplace(in.name.name, &in);
  }

  void run_entry(const Instance& entry, Args& args) {
    const VariantDecl* v = variant_of(entry);
    const TaskDecl* t = task_of(*v);
    if (args.args.size() != t->params.size())
      throw std::runtime_error("reference: " + std::to_string(args.args.size()) + " entry arguments for task '" +
                               t->name.name + "', which has " + std::to_string(t->params.size()) + " parameters");
    std::vector<RtArg> rt;
    for (size_t i = 0; i < t->params.size(); ++i) {
      const Arg& a = args.args[i];
      if (a.name != t->params[i].name.name || a.is_tensor != t->params[i].is_tensor)
        throw std::runtime_error("reference: entry argument " + std::to_string(i) + " is '" + a.name +
                                 "', expected parameter '" + t->params[i].name.name + "'");
      RtArg r;
      r.is_tensor = a.is_tensor;
      if (a.is_tensor) r.t.view = a.view;
      else r.s = a.dtype == DType::F32 ? Scalar::of_double(a.scalar) : Scalar::of_int(static_cast<int64_t>(a.scalar));
      rt.push_back(r);
    }
    std::map<std::string, DType> types;
    for (const TypeBinding& b : entry.entry_types)
      if (auto d = parse_dtype(b.type.name)) types[b.name.name] = *d;
    visit(entry, rt, types);
  }

  ReferenceStats stats;

 private:
  [[noreturn]] static void fail(const std::string& msg) { throw std::runtime_error(msg); }

  const VariantDecl* variant_of(const Instance& in) const {
    const VariantDecl* v = p_.find_variant(in.variant.name);
    if (!v) fail("reference: instance '" + in.name.name + "' has unknown variant '" + in.variant.name + "'");
    return v;
  }
  const TaskDecl* task_of(const VariantDecl& v) const {
    const TaskDecl* t = p_.find_task(v.task.name);
    if (!t) fail("reference: variant '" + v.name.name + "' implements unknown task '" + v.task.name + "'");
    return t;
  }

  static DType resolve_type(const std::string& name, const std::map<std::string, DType>& types) {
    if (auto d = parse_dtype(name)) return *d;
    auto it = types.find(name);
    if (it == types.end()) fail("unbound element type '" + name + "'");
    return it->second;
  }

  // ---- one task execution ----
  void visit(const Instance& in, const std::vector<RtArg>& args, const std::map<std::string, DType>& types) {
    const VariantDecl& v = *variant_of(in);
    const TaskDecl& t = *task_of(v);
    const std::string ctx = "variant '" + v.name.name + "' (instance '" + in.name.name + "')";
    ++stats.launches;
    auto proc_opt = parse_proc(in.processor.name);
    if (!proc_opt) fail("reference: " + ctx + " has unknown processor '" + in.processor.name + "'");
    const ProcKind proc = *proc_opt;
    if (args.size() != t.params.size())
      fail("reference: " + ctx + ": " + std::to_string(args.size()) + " arguments for " +
           std::to_string(t.params.size()) + " parameters");
    Env env;
    env.types = types;
    for (size_t i = 0; i < t.params.size(); ++i) {
      const Param& prm = t.params[i];
      const std::string& name = i < v.params.size() ? v.params[i].name.name : prm.name.name;
      if (prm.is_tensor != args[i].is_tensor)
        fail("reference: " + ctx + ": argument '" + name + "' is " + (args[i].is_tensor ? "a tensor" : "a scalar"));
      if (!prm.is_tensor) {
        const Scalar& s = args[i].s;
        env.scalars[name] = prm.elem.name == "f32" ? Scalar::of_double(round_to(DType::F32, s.d()))
                                                   : Scalar::of_int(s.is_int ? s.i : static_cast<int64_t>(s.f));
        continue;
      }
      const View& view = args[i].t.view;
      if (static_cast<size_t>(view.rank()) != prm.dims.size())
        fail("reference: " + ctx + ": argument '" + name + "' has rank " + std::to_string(view.rank()) +
             ", parameter has rank " + std::to_string(prm.dims.size()));
      if (auto conc = parse_dtype(prm.elem.name); conc && *conc != view.dtype())
        fail("reference: " + ctx + ": argument '" + name + "' is " + dtype_name(view.dtype()) + ", parameter is " +
             dtype_name(*conc));
      env.tensors[name] = TVal{view, false};
      for (size_t d = 0; d < prm.dims.size(); ++d) {
        const std::string& dn = prm.dims[d].name;
        const int64_t e = view.extents()[d];
        auto [it, fresh] = env.scalars.emplace(dn, Scalar::of_int(e));
        if (!fresh && it->second.i != e)
          fail("reference: " + ctx + ": dimension '" + dn + "' of task '" + t.name.name + "' is " +
               std::to_string(it->second.i) + " for an earlier argument but " + std::to_string(e) + " for '" + name +
               "' " + shape_str(view.extents()));
      }
    }
    for (const TuneValue& tv : in.tunes) env.scalars[tv.name.name] = eval(tv.value, env);

    if (v.kind == VariantKind::Leaf) {
      if (v.is_extern)
        throw Located("reference: " + ctx + " has an extern CUDA C++ body (" + at(v.extern_loc) +
                      "), which cannot run on the CPU; the reference interpreter runs built-in leaf operations only");
      run_leaf(v, in, env, ctx);
      return;
    }
    // A `w` tensor the variant reduces into starts at the reduction's identity (docs/language.md).
    for (const auto& [name, red] : reduced_tensors(p_, v)) {
      size_t i = 0;
      while (i < t.params.size() && (i < v.params.size() ? v.params[i].name.name : t.params[i].name.name) != name) ++i;
      if (i == t.params.size() || !t.params[i].is_tensor || t.params[i].priv != Privilege::Write) continue;
      LeafArg dst, id;
      dst.view = env.tensors[name].view;
      id.is_tensor = false;
      id.scalar = red == Privilege::ReduceSum ? 0.0 : -std::numeric_limits<double>::infinity();
      run_leaf_op(*find_leaf_op("fill"), {dst, id});
    }
    run_inner(in, proc, v.body, env, nullptr, ctx);
  }

  void run_leaf(const VariantDecl& v, const Instance& in, Env& env, const std::string& ctx) {
    for (const Stmt& s : v.body) {
      try {
        if (s.kind == StmtKind::Bind) {
          bind(s, env, ProcKind::Thread);
          continue;
        }
        if (s.kind != StmtKind::Call) fail("a leaf body may contain only leaf operations and bindings");
        const LeafOp* op = find_leaf_op(s.target.name);
        if (!op) fail("unknown leaf operation '" + s.target.name + "'");
        if (s.args.size() != op->args.size())
          fail("'" + s.target.name + "' takes " + std::to_string(op->args.size()) + " arguments");
        std::vector<LeafArg> la;
        for (size_t i = 0; i < s.args.size(); ++i) {
          LeafArg a;
          a.is_tensor = op->args[i].kind == OpArgKind::Tensor;
          if (a.is_tensor) a.view = tensor(s.args[i], env).view;
          else a.scalar = eval(s.args[i], env).d();
          la.push_back(std::move(a));
        }
        ++stats.leaf_ops;
        const TaskDecl* t = task_of(v);
        run_leaf_op(*op, la, t ? leaf_broadcast_dim(*t, s) : 0);
      } catch (const Located&) {
        throw;
      } catch (const std::exception& e) {
        throw Located("reference: " + ctx + ", " + at(s.loc) + ": " + e.what());
      }
    }
    (void)in;
  }

  void run_inner(const Instance& in, ProcKind proc, const std::vector<Stmt>& body, Env& env, PrangeCtx* pr,
                 const std::string& ctx) {
    for (const Stmt& s : body) {
      try {
        switch (s.kind) {
          case StmtKind::Bind: bind(s, env, proc); break;
          case StmtKind::Call: launch(in, s, env, pr); break;
          case StmtKind::Loop: {
            std::vector<int64_t> ext;
            for (const Expr& x : s.extents) ext.push_back(eval_int(x, env, "a loop extent"));
            if (ext.size() != s.vars.size()) fail("a loop needs one extent per variable");
            bool empty = ext.empty();
            for (int64_t e : ext) empty = empty || e <= 0;
            if (empty) break;
            Env inner = env;
            PrangeCtx ctx_here;
            std::vector<int64_t> idx(ext.size(), 0);
            for (;;) {
              for (size_t k = 0; k < idx.size(); ++k) inner.scalars[s.vars[k].name] = Scalar::of_int(idx[k]);
              run_inner(in, proc, s.body, inner, s.parallel ? &ctx_here : nullptr, ctx);
              size_t k = idx.size();
              while (k > 0) {
                if (++idx[k - 1] < ext[k - 1]) break;
                idx[k - 1] = 0;
                --k;
              }
              if (k == 0) break;
            }
            break;
          }
        }
      } catch (const Located&) {
        throw;
      } catch (const std::exception& e) {
        throw Located("reference: " + ctx + ", " + at(s.loc) + ": " + e.what());
      }
    }
  }

  const Instance* dispatch(const Instance& in, const Stmt& s) const {
    auto find = [&](const std::string& n) -> const Instance* {
      auto it = instances_.find(n);
      if (it == instances_.end()) fail("instance '" + in.name.name + "' dispatches to unknown instance '" + n + "'");
      return it->second;
    };
    if (!s.label.name.empty())
      for (const Dispatch& d : in.calls)
        if (d.key.name == s.label.name) return find(d.instance.name);
    for (const Dispatch& d : in.calls)
      if (d.key.name == s.target.name) return find(d.instance.name);
    return nullptr;
  }

  void launch(const Instance& in, const Stmt& s, const Env& env, PrangeCtx* pr) {
    const TaskDecl* t = p_.find_task(s.target.name);
    if (!t) fail("unknown task '" + s.target.name + "'");
    const Instance* child = dispatch(in, s);
    if (!child)
      fail("instance '" + in.name.name + "' has no dispatch for the launch of '" +
           (s.label.name.empty() ? s.target.name : s.label.name) + "'");
    if (s.args.size() != t->params.size())
      fail("'" + t->name.name + "' takes " + std::to_string(t->params.size()) + " arguments");
    std::vector<RtArg> args;
    std::map<std::string, DType> ctypes;
    bool all_replicated = true, any_tensor = false;
    for (size_t i = 0; i < t->params.size(); ++i) {
      const Param& prm = t->params[i];
      RtArg a;
      a.is_tensor = prm.is_tensor;
      if (prm.is_tensor) {
        a.t = tensor(s.args[i], env);
        any_tensor = true;
        all_replicated = all_replicated && a.t.replicated;
        if (!parse_dtype(prm.elem.name)) {
          auto [it, fresh] = ctypes.emplace(prm.elem.name, a.t.view.dtype());
          if (!fresh && it->second != a.t.view.dtype())
            fail("element type mismatch for type parameter '" + prm.elem.name + "' of task '" + t->name.name + "'");
        }
        a.t.replicated = false;
      } else {
        a.s = eval(s.args[i], env);
      }
      args.push_back(a);
    }
    for (const Ident& tp : t->type_params)
      if (!ctypes.count(tp.name)) ctypes[tp.name] = DType::F32;  // unused type parameter
    if (pr && any_tensor && all_replicated) {
      // The 4 lanes of a quad launch this on the same replicated entries: it runs once.
      std::vector<int64_t> key{static_cast<int64_t>(reinterpret_cast<intptr_t>(&s))};
      for (const RtArg& a : args) {
        if (a.is_tensor) {
          key.push_back(static_cast<int64_t>(reinterpret_cast<intptr_t>(a.t.view.buffer().get())));
          key.push_back(a.t.view.size());
          std::vector<int64_t> c(static_cast<size_t>(a.t.view.rank()), 0);
          for (int64_t k = 0; k < a.t.view.size(); ++k) {
            key.push_back(a.t.view.flat(c));
            for (int d = a.t.view.rank() - 1; d >= 0; --d) {
              if (++c[static_cast<size_t>(d)] < a.t.view.extents()[static_cast<size_t>(d)]) break;
              c[static_cast<size_t>(d)] = 0;
            }
          }
        } else {
          double x = a.s.d();
          int64_t bits;
          std::memcpy(&bits, &x, sizeof bits);
          key.push_back(bits);
        }
      }
      if (!pr->seen.insert(std::move(key)).second) {
        ++stats.replicated_skips;
        return;
      }
    }
    visit(*child, args, ctypes);
  }

  // ---- expressions ----
  Scalar eval(const Expr& e, const Env& env) const {
    switch (e.kind) {
      case ExprKind::Int: return Scalar::of_int(e.ival);
      case ExprKind::Float: {
        char* end = nullptr;
        double v = std::strtod(e.name.c_str(), &end);
        if (!end || *end) fail("bad number '" + e.name + "'");
        return Scalar::of_double(v);
      }
      case ExprKind::Name: {
        auto it = env.scalars.find(e.name);
        if (it == env.scalars.end()) fail("'" + e.name + "' is not a scalar here");
        return it->second;
      }
      case ExprKind::Unary: {
        Scalar a = eval(e.args[0], env);
        return a.is_int ? Scalar::of_int(-a.i) : Scalar::of_double(-a.f);
      }
      case ExprKind::Binary: {
        Scalar a = eval(e.args[0], env), b = eval(e.args[1], env);
        if (a.is_int && b.is_int) {
          int64_t out = 0;
          switch (e.op) {
            case '+':
              if (__builtin_add_overflow(a.i, b.i, &out)) fail("integer overflow");
              return Scalar::of_int(out);
            case '-':
              if (__builtin_sub_overflow(a.i, b.i, &out)) fail("integer overflow");
              return Scalar::of_int(out);
            case '*':
              if (__builtin_mul_overflow(a.i, b.i, &out)) fail("integer overflow");
              return Scalar::of_int(out);
            case '/':
            case '%':
              if (b.i == 0) fail("division by zero");
              if (a.i == INT64_MIN && b.i == -1) fail("integer overflow");
              return Scalar::of_int(e.op == '/' ? a.i / b.i : a.i % b.i);
          }
          fail(std::string("unknown operator '") + e.op + "'");
        }
        double x = a.d(), y = b.d();
        switch (e.op) {
          case '+': return Scalar::of_double(x + y);
          case '-': return Scalar::of_double(x - y);
          case '*': return Scalar::of_double(x * y);
          case '/': return Scalar::of_double(x / y);
          case '%': return Scalar::of_double(std::fmod(x, y));
        }
        fail(std::string("unknown operator '") + e.op + "'");
      }
      case ExprKind::Call: {
        const std::string& f = e.name;
        if (f == "cdiv" || f == "min" || f == "max") {
          if (e.args.size() != 2) fail("'" + f + "' takes 2 arguments");
          Scalar a = eval(e.args[0], env), b = eval(e.args[1], env);
          if (f == "cdiv") {
            if (!a.is_int || !b.is_int) fail("cdiv takes integers");
            if (b.i <= 0 || a.i < 0)
              fail("cdiv(" + std::to_string(a.i) + ", " + std::to_string(b.i) + ") needs a >= 0 and b > 0");
            return Scalar::of_int(a.i / b.i + (a.i % b.i != 0));
          }
          if (a.is_int && b.is_int) return Scalar::of_int(f == "min" ? std::min(a.i, b.i) : std::max(a.i, b.i));
          return Scalar::of_double(f == "min" ? std::min(a.d(), b.d()) : std::max(a.d(), b.d()));
        }
        if (f == "rows" || f == "cols" || f == "dim") {
          const TVal t = tensor(e.args[0], env);
          int64_t d = f == "rows" ? 0 : f == "cols" ? 1 : (e.args.size() > 1 ? eval_int(e.args[1], env, "a dimension") : -1);
          if (d < 0 || d >= t.view.rank())
            fail("'" + f + "': dimension " + std::to_string(d) + " of a tensor of rank " + std::to_string(t.view.rank()));
          return Scalar::of_int(t.view.extents()[static_cast<size_t>(d)]);
        }
        if (f == "pieces") {
          if (e.args.empty() || e.args[0].kind != ExprKind::Name) fail("'pieces' takes a partition");
          auto it = env.parts.find(e.args[0].name);
          if (it == env.parts.end()) fail("'" + e.args[0].name + "' is not a partition");
          const auto& counts = it->second.counts;
          if (e.args.size() == 2) {
            int64_t d = eval_int(e.args[1], env, "a coordinate");
            if (d < 0 || d >= static_cast<int64_t>(counts.size()))
              fail("pieces: coordinate " + std::to_string(d) + " out of range");
            return Scalar::of_int(counts[static_cast<size_t>(d)]);
          }
          int64_t n = 1;
          for (int64_t c : counts) n *= c;
          return Scalar::of_int(n);
        }
        fail("'" + f + "' is not a scalar function");
      }
      default: fail("not a scalar expression");
    }
  }

  int64_t eval_int(const Expr& e, const Env& env, const char* what) const {
    Scalar s = eval(e, env);
    if (!s.is_int) {
      if (std::trunc(s.f) != s.f) fail(std::string(what) + " must be an integer");
      return static_cast<int64_t>(s.f);
    }
    return s.i;
  }

  TVal tensor(const Expr& e, const Env& env) const {
    if (e.kind == ExprKind::Name) {
      auto it = env.tensors.find(e.name);
      if (it == env.tensors.end()) fail("'" + e.name + "' is not a tensor here");
      return it->second;
    }
    if (e.kind == ExprKind::Index && !e.args.empty() && e.args[0].kind == ExprKind::Name) {
      auto it = env.parts.find(e.args[0].name);
      if (it == env.parts.end()) fail("'" + e.args[0].name + "' is not a partition");
      const Part& part = it->second;
      std::vector<int64_t> idx;
      for (size_t i = 1; i < e.args.size(); ++i) idx.push_back(eval_int(e.args[i], env, "an index"));
      if (idx.size() != part.counts.size())
        fail("partition '" + e.args[0].name + "' takes " + std::to_string(part.counts.size()) + " indices");
      TVal out;
      out.replicated = part.replicated;
      switch (part.kind) {
        case Part::Blocks: out.view = blocks_of(part.src, part.block, idx); break;
        case Part::Slices: out.view = slice_of(part.src, part.dim, idx[0]); break;
        case Part::Mma: out.view = mma_of(part.src, part.role, part.holder, idx[0], part.transposed); break;
      }
      return out;
    }
    fail("not a tensor expression");
  }

  void bind(const Stmt& s, Env& env, ProcKind proc) {
    const Expr& v = s.value;
    const std::string& name = s.target.name;
    if (v.kind == ExprKind::Call && v.name == "tensor") {
      if (v.args.size() != 2 || v.args[1].kind != ExprKind::List) fail("tensor(ELEM, [extents]) expected");
      DType dt = resolve_type(v.args[0].name, env.types);
      std::vector<int64_t> ext;
      for (const Expr& x : v.args[1].args) {
        int64_t n = eval_int(x, env, "a tensor extent");
        if (n < 0) fail("local tensor '" + name + "' has a negative extent " + std::to_string(n));
        ext.push_back(n);
      }
      env.tensors[name] = TVal{View(make_buffer(dt, ext, name)), false};
      return;
    }
    if (v.kind == ExprKind::Call && (v.name == "blocks" || v.name == "slices" || v.name == "mma")) {
      if (v.args.empty()) fail("'" + v.name + "' needs a tensor");
      TVal src = tensor(v.args[0], env);
      Part part;
      part.src = src.view;
      const auto& ext = src.view.extents();
      if (v.name == "blocks") {
        part.kind = Part::Blocks;
        if (v.args.size() != 2 || v.args[1].kind != ExprKind::List || v.args[1].args.size() != ext.size())
          fail("blocks(T, [sizes]) needs one size per dimension of a tensor of rank " + std::to_string(ext.size()));
        for (size_t d = 0; d < ext.size(); ++d) {
          const Expr& sz = v.args[1].args[d];
          if (sz.kind == ExprKind::Star) {
            part.block.push_back(0);
            continue;
          }
          int64_t b = eval_int(sz, env, "a block size");
          // cdiv(M, G) is 0 on an empty edge piece: blocks of 0 of an empty dimension are fine.
          if (b < 0 || (b == 0 && ext[d] != 0)) fail("block size must be positive, found " + std::to_string(b));
          part.block.push_back(b);
        }
        part.counts = blocks_counts(ext, part.block);
      } else if (v.name == "slices") {
        part.kind = Part::Slices;
        if (v.args.size() != 2) fail("slices(T, d) expected");
        part.dim = static_cast<int>(eval_int(v.args[1], env, "a dimension"));
        if (part.dim < 0 || part.dim >= src.view.rank()) fail("slices: dimension out of range");
        part.counts = {ext[static_cast<size_t>(part.dim)]};
      } else {
        part.kind = Part::Mma;
        if (v.args.size() != 3 && !(v.args.size() == 4 && v.args[3].kind == ExprKind::Name && v.args[3].name == "transposed"))
          fail("mma(T, role, instr[, transposed]) expected");
        part.transposed = v.args.size() == 4;
        auto role = parse_mma_role(v.args[1].name);
        if (!role) fail("unknown mma role '" + v.args[1].name + "'");
        part.role = *role;
        part.holder = proc;
        if (proc != ProcKind::Warpgroup && proc != ProcKind::Warp)
          fail(std::string("an mma partition held by a ") + proc_name(proc) + " (only WARPGROUP or WARP)");
        part.counts = {proc == ProcKind::Warpgroup ? 4 : 32};
        part.replicated = src.view.rank() == 1 && part.role == MmaRole::Acc && proc == ProcKind::Warp;
      }
      env.parts[name] = std::move(part);
      return;
    }
    if (v.kind == ExprKind::Index || (v.kind == ExprKind::Name && env.tensors.count(v.name))) {
      env.tensors[name] = tensor(v, env);
      return;
    }
    env.scalars[name] = eval(v, env);
  }

  const Program& p_;
  std::map<std::string, const Instance*> instances_;
};

}  // namespace

ReferenceStats run_reference(const Program& p, const TaskTree& tree, Args& args) {
  const Instance* entry = entry_instance(p);
  if (!entry) throw std::runtime_error("reference: the program has no entry instance");
  if (!tree.nodes.empty() && tree.nodes[0].instance != entry->name.name)
    throw std::runtime_error("reference: the task tree's root is '" + tree.nodes[0].instance +
                             "', but the entry instance is '" + entry->name.name + "'");
  Interp interp(p);
  interp.run_entry(*entry, args);
  return interp.stats;
}

}  // namespace loom::exec
