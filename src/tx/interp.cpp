// The direct interpreter of tensor-expression programs. See interp.h. The syntax tree is first
// compiled into small nodes with resolved slots (loop values, tensors) so the inner loops do no
// name lookups.
#include "tx/interp.h"

#include <cmath>
#include <functional>
#include <random>

#include "exec/host_tensor.h"

namespace loom::tx {

namespace {

[[noreturn]] void user_error(SourceLoc loc, const std::string& msg, const std::string& hint = "") {
  Diagnostic d;
  d.loc = loc;
  d.message = msg;
  d.hint = hint;
  throw CompileError(d);
}

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Integer (index) expressions, compiled.
struct INode {
  enum Op { Const, Loop, Add, Sub, Mul, Div, Mod, Neg } op = Const;
  int64_t c = 0;
  int slot = 0;
  std::vector<INode> kids;
  int64_t eval(const int64_t* loops) const {
    switch (op) {
      case Const: return c;
      case Loop: return loops[slot];
      case Add: return kids[0].eval(loops) + kids[1].eval(loops);
      case Sub: return kids[0].eval(loops) - kids[1].eval(loops);
      case Mul: return kids[0].eval(loops) * kids[1].eval(loops);
      case Div: return floor_div(kids[0].eval(loops), kids[1].eval(loops));
      case Mod: {
        const int64_t b = kids[1].eval(loops);
        return kids[0].eval(loops) - b * floor_div(kids[0].eval(loops), b);
      }
      case Neg: return -kids[0].eval(loops);
    }
    return 0;
  }
};

struct Storage {
  DType dtype = DType::F32;
  bool round_on_store = false;
  std::vector<int64_t> extents;
  std::vector<float> data;
};

struct Access {
  int tensor = -1;
  std::vector<INode> idx;
  SourceLoc loc;
};

// Value expressions, compiled.
struct VNode {
  enum Op { Const, Index, Load, Neg, Add, Sub, Mul, Div, Fn } op = Const;
  float c = 0;
  INode index;  // Index: a loop index or size as a value
  Access access;
  std::string fn;
  std::vector<VNode> kids;
};

struct XStmt {
  enum Kind { Decl, Loop, Assign } kind = Assign;
  int tensor = -1;   // Decl
  int slot = 0;      // Loop: its value's slot
  int64_t extent = 0;
  std::vector<XStmt> body;
  Access lhs;        // Assign
  bool accumulate = false;
  VNode rhs;
};

class Interpreter {
 public:
  Interpreter(const Model& m, const std::map<std::string, int64_t>& sizes) : m_(m), sizes_(sizes) {
    loops_.assign(m.loops.size(), 0);
    store_.resize(m.tensors.size());
  }

  std::map<std::string, Array> run(const std::map<std::string, Array>& inputs) {
    for (size_t t = 0; t < m_.tensors.size(); ++t) {
      const TensorInfo& info = m_.tensors[t];
      Storage& s = store_[t];
      s.dtype = info.dtype;
      s.round_on_store = info.role == Role::New;
      if (info.role == Role::New) continue;  // allocated when its declaration runs
      s.extents = tensor_extents(m_, static_cast<int>(t), sizes_);
      if (info.role == Role::Out) {
        s.data.assign(count(s.extents), 0.0f);
        continue;
      }
      auto it = inputs.find(info.name);
      if (it == inputs.end()) user_error(info.decl->name_loc, "no data for input '" + info.name + "'");
      if (it->second.extents != s.extents || it->second.data.size() != count(s.extents))
        user_error(info.decl->name_loc, "the data for input '" + info.name + "' has the wrong shape");
      s.data.resize(it->second.data.size());
      for (size_t i = 0; i < s.data.size(); ++i) s.data[i] = static_cast<float>(exec::round_to(info.dtype, it->second.data[i]));
    }
    std::vector<XStmt> prog = compile_block(m_.program->items);
    exec_block(prog);
    std::map<std::string, Array> out;
    for (size_t t = 0; t < m_.tensors.size(); ++t) {
      if (m_.tensors[t].role != Role::Out) continue;
      Array a;
      a.dtype = store_[t].dtype;
      a.extents = store_[t].extents;
      a.data = std::move(store_[t].data);
      for (float& v : a.data) v = static_cast<float>(exec::round_to(a.dtype, v));
      out[m_.tensors[t].name] = std::move(a);
    }
    return out;
  }

 private:
  const Model& m_;
  const std::map<std::string, int64_t>& sizes_;
  std::vector<int64_t> loops_;
  std::vector<Storage> store_;
  size_t assign_index_ = 0;
  size_t tensor_index_ = 0;
  size_t loop_index_ = 0;

  static size_t count(const std::vector<int64_t>& e) {
    size_t n = 1;
    for (int64_t x : e) n *= static_cast<size_t>(x);
    return n;
  }

  int64_t size_of(const std::string& name, SourceLoc loc) const {
    auto it = sizes_.find(name);
    if (it == sizes_.end()) user_error(loc, "no value for size '" + name + "'", "give it with --size " + name + "=...");
    return it->second;
  }

  INode compile_index(const Expr& e) const {
    INode n;
    if (auto c = constant_value(e)) {
      n.c = *c;
      return n;
    }
    switch (e.kind) {
      case Expr::Kind::Name:
        if (auto it = m_.loop_of.find(&e); it != m_.loop_of.end()) {
          n.op = INode::Loop;
          n.slot = it->second;
        } else {
          n.c = size_of(e.name, e.loc);
        }
        return n;
      case Expr::Kind::Neg:
        n.op = INode::Neg;
        n.kids.push_back(compile_index(e.args[0]));
        return n;
      case Expr::Kind::Binary:
        n.op = e.op == '+' ? INode::Add : e.op == '-' ? INode::Sub : e.op == '*' ? INode::Mul : e.op == '/' ? INode::Div : INode::Mod;
        n.kids.push_back(compile_index(e.args[0]));
        n.kids.push_back(compile_index(e.args[1]));
        return n;
      default: LOOM_INTERNAL("not an index expression: " << print_expr(e));
    }
  }

  Access compile_access(const Expr& e) const {
    Access a;
    a.tensor = m_.tensor_of.at(&e);
    a.loc = e.loc;
    for (const Expr& i : e.args) a.idx.push_back(compile_index(i));
    return a;
  }

  VNode compile_value(const Expr& e) const {
    VNode n;
    switch (e.kind) {
      case Expr::Kind::Int: n.c = static_cast<float>(e.ival); return n;
      case Expr::Kind::Float: n.c = static_cast<float>(e.fval); return n;
      case Expr::Kind::Inf: n.c = INFINITY; return n;
      case Expr::Kind::Name: n.op = VNode::Index; n.index = compile_index(e); return n;
      case Expr::Kind::Access: n.op = VNode::Load; n.access = compile_access(e); return n;
      case Expr::Kind::Call:
        n.op = VNode::Fn;
        n.fn = e.name;
        break;
      case Expr::Kind::Neg: n.op = VNode::Neg; break;
      case Expr::Kind::Binary:
        n.op = e.op == '+' ? VNode::Add : e.op == '-' ? VNode::Sub : e.op == '*' ? VNode::Mul : VNode::Div;
        break;
    }
    for (const Expr& a : e.args) n.kids.push_back(compile_value(a));
    return n;
  }

  std::vector<XStmt> compile_block(const std::vector<Stmt>& items) {
    std::vector<XStmt> out;
    for (const Stmt& s : items) {
      XStmt x;
      switch (s.kind) {
        case Stmt::Kind::Decl:
          if (s.role != Role::New) continue;  // inputs and outputs are bound before the program runs
          x.kind = XStmt::Decl;
          x.tensor = m_.find_tensor(s.name);
          break;
        case Stmt::Kind::Loop: {
          x.kind = XStmt::Loop;
          x.slot = static_cast<int>(loop_index_++);
          INode e = compile_index(s.extent);
          x.extent = e.eval(loops_.data());
          x.body = compile_block(s.body);
          break;
        }
        case Stmt::Kind::Assign:
          x.kind = XStmt::Assign;
          x.lhs = compile_access(s.lhs);
          x.accumulate = s.accumulate;
          x.rhs = compile_value(s.rhs);
          ++assign_index_;
          break;
      }
      out.push_back(std::move(x));
    }
    return out;
  }

  size_t offset(const Access& a) const {
    const Storage& s = store_[a.tensor];
    size_t off = 0;
    for (size_t d = 0; d < a.idx.size(); ++d) {
      const int64_t i = a.idx[d].eval(loops_.data());
      if (i < 0 || i >= s.extents[d])
        user_error(a.loc, "index " + std::to_string(i) + " of dimension " + std::to_string(d) + " of '" +
                              m_.tensors[a.tensor].name + "' is outside [0, " + std::to_string(s.extents[d]) + ")");
      off = off * static_cast<size_t>(s.extents[d]) + static_cast<size_t>(i);
    }
    return off;
  }

  float eval(const VNode& n) const {
    switch (n.op) {
      case VNode::Const: return n.c;
      case VNode::Index: return static_cast<float>(n.index.eval(loops_.data()));
      case VNode::Load: return store_[n.access.tensor].data[offset(n.access)];
      case VNode::Neg: return -eval(n.kids[0]);
      case VNode::Add: return eval(n.kids[0]) + eval(n.kids[1]);
      case VNode::Sub: return eval(n.kids[0]) - eval(n.kids[1]);
      case VNode::Mul: return eval(n.kids[0]) * eval(n.kids[1]);
      case VNode::Div: return eval(n.kids[0]) / eval(n.kids[1]);
      case VNode::Fn: return apply_function(n.fn, eval(n.kids[0]), n.kids.size() > 1 ? eval(n.kids[1]) : 0.0f);
    }
    return 0;
  }

  void exec_block(const std::vector<XStmt>& block) {
    for (const XStmt& x : block) {
      switch (x.kind) {
        case XStmt::Decl: {
          Storage& s = store_[x.tensor];
          s.extents = tensor_extents(m_, x.tensor, sizes_);
          s.data.assign(count(s.extents), 0.0f);
          break;
        }
        case XStmt::Loop:
          for (int64_t i = 0; i < x.extent; ++i) {
            loops_[x.slot] = i;
            exec_block(x.body);
          }
          break;
        case XStmt::Assign: {
          const float v = eval(x.rhs);
          Storage& s = store_[x.lhs.tensor];
          float& dst = s.data[offset(x.lhs)];
          float r = x.accumulate ? dst + v : v;
          if (s.round_on_store) r = static_cast<float>(exec::round_to(s.dtype, r));
          dst = r;
          break;
        }
      }
    }
  }
};

}  // namespace

float apply_function(const std::string& f, float x, float y) {
  if (f == "relu") return x > 0 ? x : 0.0f;
  if (f == "gelu") return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
  if (f == "sigmoid") return 1.0f / (1.0f + std::exp(-x));
  if (f == "silu") return x / (1.0f + std::exp(-x));
  if (f == "exp") return std::exp(x);
  if (f == "log") return std::log(x);
  if (f == "sqrt") return std::sqrt(x);
  if (f == "rsqrt") return 1.0f / std::sqrt(x);
  if (f == "tanh") return std::tanh(x);
  if (f == "abs") return std::fabs(x);
  if (f == "max") return std::fmax(x, y);
  if (f == "min") return std::fmin(x, y);
  if (f == "bf16") return static_cast<float>(exec::round_to(DType::BF16, x));
  if (f == "f16") return static_cast<float>(exec::round_to(DType::F16, x));
  if (f == "f32") return x;
  LOOM_INTERNAL("unknown pointwise function '" << f << "'");
}

std::vector<int64_t> tensor_extents(const Model& m, int t, const std::map<std::string, int64_t>& sizes) {
  std::vector<int64_t> out;
  for (const Expr& e : m.tensors[t].decl->extents) {
    // Extents are quasi-affine in size symbols (checked): evaluate with no loop values.
    std::function<int64_t(const Expr&)> ev = [&](const Expr& x) -> int64_t {
      if (auto c = constant_value(x)) return *c;
      switch (x.kind) {
        case Expr::Kind::Name: {
          auto it = sizes.find(x.name);
          if (it == sizes.end()) user_error(x.loc, "no value for size '" + x.name + "'", "give it with --size " + x.name + "=...");
          if (it->second < 1) user_error(x.loc, "size '" + x.name + "' must be at least 1");
          return it->second;
        }
        case Expr::Kind::Neg: return -ev(x.args[0]);
        case Expr::Kind::Binary: {
          const int64_t a = ev(x.args[0]), b = ev(x.args[1]);
          switch (x.op) {
            case '+': return a + b;
            case '-': return a - b;
            case '*': return a * b;
            case '/': return floor_div(a, b);
            default: return a - b * floor_div(a, b);
          }
        }
        default: LOOM_INTERNAL("not an extent: " << print_expr(x));
      }
    };
    const int64_t v = ev(e);
    if (v < 1) user_error(e.loc, "extent " + print_expr(e) + " of '" + m.tensors[t].name + "' is " + std::to_string(v) + " for these sizes");
    if (v > (int64_t(1) << 31)) user_error(e.loc, "extent " + print_expr(e) + " of '" + m.tensors[t].name + "' is too large for the interpreter");
    out.push_back(v);
  }
  return out;
}

std::map<std::string, Array> interpret_tx(const Model& m, const std::map<std::string, int64_t>& sizes,
                                          const std::map<std::string, Array>& inputs) {
  for (const std::string& s : m.sizes)
    if (!sizes.count(s)) user_error(SourceLoc{}, "no value for size '" + s + "'", "give it with --size " + s + "=...");
  return Interpreter(m, sizes).run(inputs);
}

std::map<std::string, Array> random_inputs(const Model& m, const std::map<std::string, int64_t>& sizes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::map<std::string, Array> out;
  for (size_t t = 0; t < m.tensors.size(); ++t) {
    if (m.tensors[t].role != Role::In) continue;
    Array a;
    a.dtype = m.tensors[t].dtype;
    a.extents = tensor_extents(m, static_cast<int>(t), sizes);
    size_t n = 1;
    for (int64_t e : a.extents) n *= static_cast<size_t>(e);
    a.data.resize(n);
    for (float& v : a.data) v = static_cast<float>(exec::round_to(a.dtype, dist(rng)));
    out[m.tensors[t].name] = std::move(a);
  }
  return out;
}

}  // namespace loom::tx
