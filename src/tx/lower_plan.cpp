// The lowering's plan (src/tx/lower_internal.h): the kernel checked for what a task program can
// express, its tensors as the entry task's parameters, and collision-free names for everything the
// lowering adds. Test: tests/unit/tx_lower_test.cpp.
#include "tx/lower_internal.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace loom::tx::detail {

void lowering_error(const ContractionKernel& k, const std::string& message, const std::string& hint) {
  Diagnostic d;
  d.loc = SourceLoc{k.loc.source_file, uint32_t(std::max(k.loc.line, 0)), uint32_t(std::max(k.loc.col, 0))};
  d.message = (k.name.empty() ? std::string("contraction") : "contraction `" + k.name + "`") + ": " + message;
  d.hint = hint;
  throw CompileError(d);
}

std::string Names::fresh(const std::string& base) {
  std::string n = base;
  for (int i = 2; taken(n); ++i) n = base + "_" + std::to_string(i);
  used_.insert(n);
  return n;
}

const char* pointwise_leaf(Pointwise f) {
  switch (f) {
    case Pointwise::Identity: return "";
    case Pointwise::Relu: return "relu";
    case Pointwise::Gelu: return "gelu";
    case Pointwise::Silu: return "silu";
    case Pointwise::Sigmoid: return "sigmoid";
    case Pointwise::Exp: return "exp";
    case Pointwise::Neg: return "scale";  // scale(D, S, -1)
  }
  return "";
}

const std::string& Plan::variant(const std::string& task, const std::string& role) const {
  auto it = variants.find(task + "/" + role);
  LOOM_ASSERT(it != variants.end(), "no variant " << task << "/" << role);
  return it->second;
}

std::string comment(const std::string& text) {
  std::string out;
  std::istringstream paragraphs(text);
  for (std::string para; std::getline(paragraphs, para);) {
    std::istringstream words(para);
    std::string line = "//";
    for (std::string w; words >> w;) {
      if (line.size() + 1 + w.size() > 100 && line != "//") {
        out += line + "\n";
        line = "//";
      }
      line += " " + w;
    }
    out += line + "\n";
  }
  return out;
}

std::string param_names(const Plan& p) {
  std::string s;
  for (const Param& q : p.params) s += (s.empty() ? "" : ", ") + q.name;
  return s;
}

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// Adds (or finds) the parameter for one use of a tensor; a tensor used twice must be used alike.
int add_param(Plan& p, const ContractionKernel& k, const TxOperand& o, Role role, std::vector<std::string> dims) {
  if (!is_identifier(o.name)) lowering_error(k, "the tensor name `" + o.name + "` is not an identifier");
  for (size_t i = 0; i < p.params.size(); ++i) {
    Param& q = p.params[i];
    if (q.name != o.name) continue;
    const bool same = q.role == role && q.dims == dims && q.dtype == o.dtype && q.col_major == o.transposed;
    const bool in_place = q.role == Role::Out && role == Role::Residual && q.dims == dims && q.dtype == o.dtype;
    if (!same && !in_place)
      lowering_error(k, "tensor `" + o.name + "` is used in two different roles (or index orders, or types)",
                     "a task program passes each tensor once: use a copy of the tensor for its second use");
    if (in_place) q.read = true;
    return int(i);
  }
  Param q;
  q.name = o.name;
  q.dtype = o.dtype;
  q.role = role;
  q.batched = role != Role::Bias;
  q.col_major = o.transposed;
  q.dims = std::move(dims);
  q.written = role == Role::Out;
  q.read = role != Role::Out;
  p.params.push_back(q);
  return int(p.params.size() - 1);
}

void check_kernel(const ContractionKernel& k) {
  if (!is_identifier(k.name)) lowering_error(k, "the kernel name `" + k.name + "` is not an identifier");
  if (k.terms.empty() || k.terms.size() > 2)
    lowering_error(k, "the lowering takes one or two contractions into one accumulator, not " +
                          std::to_string(k.terms.size()),
                   "split the sum into kernels of at most two products each");
  std::vector<std::string> dims = k.batch;
  dims.push_back(k.m);
  dims.push_back(k.n);
  for (const TxTerm& t : k.terms) dims.push_back(t.k);
  for (const std::string& d : dims)
    if (!is_identifier(d)) lowering_error(k, "the dimension name `" + d + "` is not an identifier");
  for (const TxTerm& t : k.terms) {
    for (const TxOperand* o : {&t.a, &t.b})
      if (o->dtype != DType::BF16 && o->dtype != DType::F16)
        lowering_error(k, "operand `" + o->name + "` is " + dtype_name(o->dtype) +
                              "; the tensor cores multiply f16 or bf16",
                       "convert the operand to bf16 (or f16) before the contraction");
    if (t.a.dtype != t.b.dtype)
      lowering_error(k, "the operands `" + t.a.name + "` (" + dtype_name(t.a.dtype) + ") and `" + t.b.name + "` (" +
                            dtype_name(t.b.dtype) + ") of one product have different types",
                     "the tensor cores multiply two operands of the same type");
  }
  if (!is_float(k.out.dtype)) lowering_error(k, std::string("the output is ") + dtype_name(k.out.dtype) + ", not a float type");
  if (k.bias && !is_float(k.bias->dtype)) lowering_error(k, "the bias `" + k.bias->name + "` is not a float type");
  if (k.residual && !is_float(k.residual->dtype))
    lowering_error(k, "the residual `" + k.residual->name + "` is not a float type");
}

}  // namespace

Plan make_plan(const ContractionKernel& k, const Machine& m) {
  check_kernel(k);
  Plan p;
  p.kernel = &k;
  p.machine = &m;
  // The entry's parameters: the output, each term's operands, the bias, the residual.
  p.out = add_param(p, k, k.out, Role::Out, {k.m, k.n});
  for (const TxTerm& t : k.terms) {
    TermPlan tp;
    tp.k = t.k;
    tp.a = add_param(p, k, t.a, Role::A, {k.m, t.k});
    tp.b = add_param(p, k, t.b, Role::B, {t.k, k.n});
    p.terms.push_back(tp);
  }
  if (k.bias) p.bias = add_param(p, k, *k.bias, Role::Bias, {k.n});
  if (k.residual) p.residual = add_param(p, k, *k.residual, Role::Residual, {k.m, k.n});
  // Every user name is taken: tensors, dimensions, the kernel.
  Names names;
  names.reserve(k.name);
  for (const Param& q : p.params) names.reserve(q.name);
  std::vector<std::string> dims = k.batch;
  dims.insert(dims.end(), {k.m, k.n});
  for (const TxTerm& t : k.terms) dims.push_back(t.k);
  for (const std::string& d : dims) names.reserve(d);
  for (const Param& q : p.params)
    for (const std::string& d : dims)
      if (q.name == d)
        lowering_error(k, "tensor `" + q.name + "` is named like a dimension", "rename the tensor or the dimension");
  // The tasks: the entry (k.name), one per further batch level, the matrix task, the helpers.
  for (size_t b = 0; b < k.batch.size(); ++b)
    p.batch_tasks.push_back(b == 0 ? k.name : names.fresh(k.name + "_b" + std::to_string(b)));
  p.mat_task = k.batch.empty() ? k.name : names.fresh(k.name + "_mat");
  p.gemm = names.fresh(names.taken("gemm") ? "gemm_step" : "gemm");  // a kernel named gemm is common
  p.clear = names.fresh("clear");
  p.epilogue = names.fresh("epilogue");
  // One prologue task per operand that has one (a tensor used by both terms with the same
  // prologue shares it).
  for (size_t t = 0; t < k.terms.size(); ++t) {
    const TxTerm& term = k.terms[t];
    for (Role side : {Role::A, Role::B}) {
      const TxOperand& o = side == Role::A ? term.a : term.b;
      if (o.prologue == Pointwise::Identity) continue;
      const int param = side == Role::A ? p.terms[t].a : p.terms[t].b;
      int found = -1;
      for (size_t i = 0; i < p.prologues.size(); ++i)
        if (p.prologues[i].param == param && p.prologues[i].fn == o.prologue) found = int(i);
      if (found < 0) {
        Prologue pro;
        pro.param = param;
        pro.side = side;
        pro.fn = o.prologue;
        pro.task = names.fresh(std::string(pointwise_name(o.prologue)) + "_" + o.name);
        p.prologues.push_back(pro);
        found = int(p.prologues.size() - 1);
      }
      (side == Role::A ? p.terms[t].pro_a : p.terms[t].pro_b) = found;
    }
  }
  p.U = names.fresh("U");
  p.V = names.fresh("V");
  p.W = names.fresh("W");
  // Locals and loop variables of the matrix task's block variant.
  for (size_t t = 0; t < p.terms.size(); ++t) p.terms[t].loop_var = names.fresh(t == 0 ? "k" : "l");
  for (Prologue& pro : p.prologues) pro.local = names.fresh("R" + p.params[pro.param].name);
  // Terms whose operand tiles differ in order need their own staging instance (its layout).
  if (p.terms.size() == 2) {
    const Param &a0 = p.params[p.terms[0].a], &b0 = p.params[p.terms[0].b];
    const Param &a1 = p.params[p.terms[1].a], &b1 = p.params[p.terms[1].b];
    if (a0.col_major != a1.col_major || b0.col_major != b1.col_major) {
      p.stagings = 2;
      p.terms[1].staging = 1;
      for (TermPlan& t : p.terms) t.label = names.fresh(t.loop_var == p.terms[0].loop_var ? "first" : "second");
    }
  }
  // Variant names: <task>_<role>.
  for (const std::string& t : p.batch_tasks) p.variants[t + "/slices"] = names.fresh(t + "_slices");
  for (const char* r : {"host", "block"}) p.variants[p.mat_task + "/" + r] = names.fresh(p.mat_task + "_" + r);
  std::vector<std::string> helpers = {p.gemm, p.clear, p.epilogue};
  for (const Prologue& pro : p.prologues) helpers.push_back(pro.task);
  for (const std::string& t : helpers)
    for (const char* r : {"tile", "mma", "thread"}) p.variants[t + "/" + r] = names.fresh(t + "_" + r);
  p.names = names;
  p.tiles = choose_tiles(k, m);
  return p;
}

}  // namespace loom::tx::detail
