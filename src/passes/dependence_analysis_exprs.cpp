// Dependence analysis: scalar expressions, tensor views and bindings — the immediate ops of a variant
// body (const, arith, dim; piece for indexed partitions; alloc NONE for local tensors), and the names
// each `name = expr;` binds in the scope. The rules: dependence_analysis.cpp; the class:
// dependence_analysis_internal.h.
#include "passes/dependence_analysis_internal.h"

#include "loom/frontend.h"

namespace loom::dependence_analysis_detail {

bool is_partition_call(const Expr& v) {
  return v.kind == ExprKind::Call && (v.name == "blocks" || v.name == "slices" || v.name == "mma");
}

std::optional<int64_t> Lowering::static_eval(const Expr& e) const {
  switch (e.kind) {
    case ExprKind::Int: return e.ival;
    case ExprKind::Name: {
      auto it = fr_->tunables.find(e.name);
      if (it == fr_->tunables.end()) return std::nullopt;
      return it->second;
    }
    case ExprKind::Unary: {
      auto a = static_eval(e.args[0]);
      return a ? std::optional<int64_t>(-*a) : std::nullopt;
    }
    case ExprKind::Binary: {
      auto a = static_eval(e.args[0]), b = static_eval(e.args[1]);
      if (!a || !b) return std::nullopt;
      switch (e.op) {
        case '+': return *a + *b;
        case '-': return *a - *b;
        case '*': return *a * *b;
        case '/': return *b ? std::optional<int64_t>(*a / *b) : std::nullopt;
        case '%': return *b ? std::optional<int64_t>(*a % *b) : std::nullopt;
      }
      return std::nullopt;
    }
    case ExprKind::Call: {
      if (e.args.size() != 2) return std::nullopt;
      auto a = static_eval(e.args[0]), b = static_eval(e.args[1]);
      if (!a || !b) return std::nullopt;
      if (e.name == "min") return std::min(*a, *b);
      if (e.name == "max") return std::max(*a, *b);
      if (e.name == "cdiv" && *b > 0) return (*a + *b - 1) / *b;
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

ValueId Lowering::name_value(const std::string& name, Scope& sc) {
  auto it = sc.scalars.find(name);
  if (it != sc.scalars.end()) return it->second;
  if (auto d = fr_->dims.find(name); d != fr_->dims.end()) {
    ValueId r = dim(d->second.first, d->second.second, name);
    sc.scalars[name] = r;
    return r;
  }
  if (auto t = fr_->tunables.find(name); t != fr_->tunables.end()) {
    ValueId r = f_.add_value(ValueInfo{Type::Index, name});
    emit(OpKind::Const, r, false).ival = t->second;
    sc.scalars[name] = r;
    return r;
  }
  LOOM_INTERNAL("dependence analysis: unknown scalar '" << name << "' in variant " << fr_->var->name.name);
}

std::string Lowering::arith_name(char op) {
  switch (op) {
    case '+': return "add";
    case '-': return "sub";
    case '*': return "mul";
    case '/': return "div";
    case '%': return "mod";
  }
  LOOM_INTERNAL("dependence analysis: unknown operator " << op);
}

ValueId Lowering::index(const Expr& e, Scope& sc) {
  switch (e.kind) {
    case ExprKind::Int: return constant(e.ival, sc);
    case ExprKind::Name: return name_value(e.name, sc);
    case ExprKind::Unary: {
      ValueId a = index(e.args[0], sc);
      return arith("sub", constant(0, sc), a);
    }
    case ExprKind::Binary: {
      ValueId a = index(e.args[0], sc);
      ValueId b = index(e.args[1], sc);
      return arith(arith_name(e.op), a, b);
    }
    case ExprKind::Call: {
      if (e.name == "cdiv" || e.name == "min" || e.name == "max") {
        ValueId a = index(e.args[0], sc);
        ValueId b = index(e.args[1], sc);
        return arith(e.name, a, b);
      }
      if (e.name == "rows" || e.name == "cols" || e.name == "dim") {
        TensorVal t = tensor(e.args[0], sc, "");
        int d = e.name == "rows" ? 0 : e.name == "cols" ? 1 : static_cast<int>(e.args[1].ival);
        return dim(t.value, d, "");
      }
      if (e.name == "pieces") return pieces(e, sc);
      break;
    }
    default: break;
  }
  LOOM_INTERNAL("dependence analysis: cannot lower scalar expression '" << format_expr(e) << "'");
}

// The number of pieces of a partition (along index coordinate d, or in all).
ValueId Lowering::pieces(const Expr& e, Scope& sc) {
  auto it = sc.parts.find(e.args[0].name);
  LOOM_ASSERT(it != sc.parts.end(), "pieces of unknown partition " << e.args[0].name);
  const PartVal& pv = it->second;
  auto along = [&](size_t d) -> ValueId {
    switch (pv.spec.kind) {
      case PartitionSpec::Kind::Blocks:
        if (pv.spec.block[d] == kNone) return constant(1, sc);
        return arith("cdiv", dim(pv.src, static_cast<int>(d), ""), pv.spec.block[d]);
      case PartitionSpec::Kind::Slices: return dim(pv.src, pv.spec.dim, "");
      case PartitionSpec::Kind::Mma: {
        auto below = t_.machine->child_level(pv.spec.holder);
        LOOM_ASSERT(below, "mma holder without sub-processors");
        return constant(t_.machine->level(*below)->per_parent, sc);
      }
    }
    return kNone;
  };
  size_t coords = pv.spec.kind == PartitionSpec::Kind::Blocks ? pv.spec.block.size() : 1;
  if (e.args.size() == 2) return along(static_cast<size_t>(e.args[1].ival));
  ValueId n = along(0);
  for (size_t d = 1; d < coords; ++d) n = arith("mul", n, along(d));
  return n;
}

// A scalar argument: a float or index value.
ValueId Lowering::scalar(const Expr& e, Scope& sc) {
  if (e.kind == ExprKind::Name) {
    auto it = sc.scalars.find(e.name);
    if (it != sc.scalars.end()) return it->second;
  }
  return index(e, sc);
}

TensorVal Lowering::tensor(const Expr& e, Scope& sc, const std::string& hint) {
  if (e.kind == ExprKind::Name) {
    auto it = sc.tensors.find(e.name);
    LOOM_ASSERT(it != sc.tensors.end(), "unknown tensor '" << e.name << "'");
    return it->second;
  }
  LOOM_ASSERT(e.kind == ExprKind::Index && e.args[0].kind == ExprKind::Name, "not a tensor: " << format_expr(e));
  auto it = sc.parts.find(e.args[0].name);
  LOOM_ASSERT(it != sc.parts.end(), "unknown partition '" << e.args[0].name << "'");
  PartVal pv = it->second;
  std::vector<ValueId> idx;
  for (size_t i = 1; i < e.args.size(); ++i) idx.push_back(index(e.args[i], sc));
  const ValueInfo& src = info(pv.src);
  int rank = pv.spec.kind == PartitionSpec::Kind::Slices ? src.rank - 1 : src.rank;
  ValueId r = tensor_value(src.dtype, src.mem, rank, hint.empty() ? e.args[0].name : hint);
  Op& op = emit(OpKind::Piece, r, false);
  op.operands.push_back(pv.src);
  op.operands.insert(op.operands.end(), idx.begin(), idx.end());
  op.part = pv.spec;
  return TensorVal{r, pv.root};
}

void Lowering::partition(const Stmt& s, Scope& sc) {
  const Expr& v = s.value;
  TensorVal src = tensor(v.args[0], sc, "");
  PartVal pv;
  pv.src = src.value;
  pv.root = src.root;
  if (v.name == "blocks") {
    pv.spec.kind = PartitionSpec::Kind::Blocks;
    for (const Expr& sz : v.args[1].args) pv.spec.block.push_back(sz.kind == ExprKind::Star ? kNone : index(sz, sc));
  } else if (v.name == "slices") {
    pv.spec.kind = PartitionSpec::Kind::Slices;
    pv.spec.dim = static_cast<int>(v.args[1].ival);
  } else {
    pv.spec.kind = PartitionSpec::Kind::Mma;
    auto role = parse_mma_role(v.args[1].name);
    LOOM_ASSERT(role, "mma role " << v.args[1].name);
    pv.spec.role = *role;
    const Expr& ins = v.args[2];
    pv.spec.instr = ins.name;
    int64_t* shape[3] = {&pv.spec.m, &pv.spec.n, &pv.spec.k};
    for (int i = 0; i < 3; ++i) {
      auto x = static_eval(ins.args[static_cast<size_t>(i)]);
      LOOM_ASSERT(x, "mma shape '" << format_expr(ins.args[static_cast<size_t>(i)]) << "' is not static");
      *shape[i] = *x;
    }
    pv.spec.holder = fr_->node->proc;
    pv.spec.transposed = v.args.size() == 4;  // the checker admits only `transposed` there
  }
  sc.parts[s.target.name] = pv;
}

// `name = expr;` in any body: a local tensor, a partition, a tensor view, or a scalar.
void Lowering::bind(const Stmt& s, Scope& sc) {
  const Expr& v = s.value;
  const std::string& name = s.target.name;
  if (v.kind == ExprKind::Call && v.name == "tensor") {
    auto dt = parse_dtype(v.args[0].name);
    DType dtype = DType::F32;
    if (dt) {
      dtype = *dt;
    } else {
      // A task type parameter: take the element type the instance was instantiated with.
      const TaskDecl& t = *fr_->task;
      // (A type parameter no argument binds is f32, as in the checker.)
      for (size_t i = t.params.size(); i-- > 0;)
        if (t.params[i].is_tensor && t.params[i].elem.name == v.args[0].name) dtype = fr_->node->args[i].dtype;
    }
    std::vector<ValueId> ext;
    for (const Expr& x : v.args[1].args) ext.push_back(index(x, sc));
    ValueId r = tensor_value(dtype, MemKind::None, static_cast<int>(ext.size()), name);
    Op& op = emit(OpKind::Alloc, r, true);
    op.mem = MemKind::None;
    op.dtype = dtype;
    op.operands = ext;
    op.name = fr_->node->instance;  // the instance whose variant declares the local (diagnostics)
    int root = static_cast<int>(fr_->roots.size());
    fr_->roots.push_back(RootState{name, {}, {}});
    sc.tensors[name] = TensorVal{r, root};
    return;
  }
  if (is_partition_call(v)) return partition(s, sc);
  if (v.kind == ExprKind::Index || (v.kind == ExprKind::Name && sc.tensors.count(v.name))) {
    sc.tensors[name] = tensor(v, sc, name);
    return;
  }
  size_t before = f_.values.size();
  ValueId r = scalar(v, sc);
  if (static_cast<size_t>(r) >= before) f_.values[static_cast<size_t>(r)].name = name;
  sc.scalars[name] = r;
}

}  // namespace loom::dependence_analysis_detail
