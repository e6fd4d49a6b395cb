// The task declarations and variants of a lowered contraction (src/tx/lower_internal.h): the
// user-facing tasks (batch levels, the matrix task's host and block variants) composed from the
// kernel's parts, and the helper tasks (the K step's gemm, clear, the epilogue, the prologues),
// each decomposed block -> warpgroups -> warps -> threads as in examples/gemm. Test:
// tests/unit/tx_lower_test.cpp.
#include "tx/lower_internal.h"

#include <sstream>

namespace loom::tx::detail {

namespace {

const char* priv(const Param& q) { return q.written ? (q.read ? "rw" : "w") : "r"; }

std::string join(const std::vector<std::string>& xs) {
  std::string s;
  for (const std::string& x : xs) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// `task NAME(p: priv type[dims], ...);` with the first `batch_from` batch dimensions dropped.
std::string task_decl(const Plan& p, const std::string& name, size_t batch_from) {
  const ContractionKernel& k = *p.kernel;
  std::vector<std::string> ps;
  for (const Param& q : p.params) {
    std::vector<std::string> dims;
    if (q.batched) dims.assign(k.batch.begin() + long(batch_from), k.batch.end());
    dims.insert(dims.end(), q.dims.begin(), q.dims.end());
    ps.push_back(q.name + ": " + priv(q) + " " + dtype_name(q.dtype) + "[" + join(dims) + "]");
  }
  return "task " + name + "(" + join(ps) + ");\n";
}

// One batch level: slices of every batched tensor along its first dimension, one launch per index.
std::string batch_variant(const Plan& p, size_t level) {
  const ContractionKernel& k = *p.kernel;
  const std::string& task = p.batch_tasks[level];
  const std::string next = level + 1 < p.batch_tasks.size() ? p.batch_tasks[level + 1] : p.mat_task;
  Names scope = p.names;
  std::ostringstream o;
  o << comment("Batch dimension " + k.batch[level] +
                ": one launch per index; slices(T, 0) drops the dimension (examples/batched_gemm). The "
                "launches are independent (distinct slices of " + p.params[p.out].name + ").");
  o << "variant " << p.variant(task, "slices") << " of " << task << "(" << param_names(p) << "): inner {\n";
  std::vector<std::string> args;
  const std::string b = scope.fresh("b");
  std::vector<std::string> locals;
  for (const Param& q : p.params) {
    if (!q.batched) {
      args.push_back(q.name);
      continue;
    }
    const std::string s = scope.fresh(q.name + "s");
    o << "  " << s << " = slices(" << q.name << ", 0);\n";
    args.push_back(s + "[" + b + "]");
  }
  o << "  prange " << b << " in " << k.batch[level] << " {\n    " << next << "(" << join(args) << ");\n  }\n}\n";
  return o.str();
}

// The matrix task on HOST: one U x V tile of the output per block.
std::string host_variant(const Plan& p) {
  const ContractionKernel& k = *p.kernel;
  Names scope = p.names;
  const std::string i = scope.fresh("i"), j = scope.fresh("j");
  std::ostringstream o;
  std::string reads;
  for (const Param& q : p.params) {
    if (q.role == Role::A) reads += ", a row panel of " + q.name;
    if (q.role == Role::B) reads += ", a column panel of " + q.name;
    if (q.role == Role::Bias) reads += ", the entries of " + q.name + " that belong to its columns";
    if (q.role == Role::Residual && q.name != p.params[p.out].name) reads += ", the same tile of " + q.name;
  }
  o << comment("One " + p.U + " x " + p.V + " tile of " + p.params[p.out].name + " per block; the block reads" +
               reads.substr(1) + ".");
  o << "variant " << p.variant(p.mat_task, "host") << " of " << p.mat_task << "(" << param_names(p)
    << "): inner tunables(" << p.U << ", " << p.V << ") {\n";
  std::vector<std::string> args;
  for (const Param& q : p.params) {
    const std::string part = scope.fresh(q.name + "p");
    std::string blocks, index;
    switch (q.role) {
      case Role::Out:
      case Role::Residual: blocks = p.U + ", " + p.V, index = i + ", " + j; break;
      case Role::A: blocks = p.U + ", *", index = i + ", 0"; break;
      case Role::B: blocks = "*, " + p.V, index = "0, " + j; break;
      case Role::Bias: blocks = p.V, index = j; break;
    }
    o << "  " << part << " = blocks(" << q.name << ", [" << blocks << "]);\n";
    args.push_back(part + "[" + index + "]");
  }
  o << "  prange " << i << ", " << j << " in cdiv(" << k.m << ", " << p.U << "), cdiv(" << k.n << ", " << p.V
    << ") {\n    " << p.mat_task << "(" << join(args) << ");\n  }\n}\n";
  return o.str();
}

// The matrix task on BLOCK: the K loop of every term into one fp32 accumulator, the prologues on
// each K step's operand tiles, then the epilogue once per tile.
std::string block_variant(const Plan& p) {
  const ContractionKernel& k = *p.kernel;
  Names scope = p.names;
  const std::string acc = scope.fresh("Acc");
  std::ostringstream o;
  std::string walk;
  for (size_t t = 0; t < p.terms.size(); ++t) walk += (t ? ", then " : "") + p.terms[t].k;
  std::string pros;
  for (const Prologue& pro : p.prologues)
    pros += " The K step's tile of " + p.params[pro.param].name + " goes through " + pointwise_name(pro.fn) +
            " into " + pro.local + " first (never written to memory).";
  o << comment("Inside a block: clear an fp32 accumulator, walk " + walk + " in steps of " + p.W +
               (p.terms.size() > 1 ? " (both products into the same accumulator)" : "") + "." + pros +
               " The epilogue writes " + p.params[p.out].name + " from the accumulator, once per tile.");
  o << "variant " << p.variant(p.mat_task, "block") << " of " << p.mat_task << "(" << param_names(p)
    << "): inner tunables(" << p.W << ") {\n";
  o << "  " << acc << " = tensor(f32, [" << k.m << ", " << k.n << "]);\n";
  o << "  " << p.clear << "(" << acc << ");\n";
  std::map<int, std::string> parts;  // operand param -> its K-step partition
  for (const TermPlan& t : p.terms)
    for (int q : {t.a, t.b}) {
      if (parts.count(q)) continue;
      parts[q] = scope.fresh(p.params[q].name + "p");
      o << "  " << parts[q] << " = blocks(" << p.params[q].name << ", ["
        << (p.params[q].role == Role::A ? "*, " + p.W : p.W + ", *") << "]);\n";
    }
  for (const TermPlan& t : p.terms) {
    const std::string& kv = t.loop_var;
    o << "  srange " << kv << " in cdiv(" << t.k << ", " << p.W << ") {\n";
    std::string a = parts[t.a] + "[0, " + kv + "]", b = parts[t.b] + "[" + kv + ", 0]";
    for (int pi : {t.pro_a, t.pro_b}) {
      if (pi < 0) continue;
      const Prologue& pro = p.prologues[pi];
      std::string& operand = pro.side == Role::A ? a : b;
      const std::string tile = scope.fresh(p.params[pro.param].name + kv);
      o << "    " << tile << " = " << operand << ";\n";
      o << "    " << pro.local << " = tensor(" << dtype_name(p.params[pro.param].dtype) << ", ["
        << (pro.side == Role::A ? k.m + ", cols(" + tile + ")" : "rows(" + tile + "), " + k.n) << "]);\n";
      o << "    " << pro.task << "(" << pro.local << ", " << tile << ");\n";
      operand = pro.local;
    }
    o << "    " << (t.label.empty() ? "" : t.label + ": ") << p.gemm << "(" << acc << ", " << a << ", " << b << ");\n";
    o << "  }\n";
  }
  o << "  " << p.epilogue << "(" << p.params[p.out].name << ", " << acc;
  if (p.bias >= 0) o << ", " << p.params[p.bias].name;
  if (p.residual >= 0) o << ", " << p.params[p.residual].name;
  o << ");\n}\n";
  return o.str();
}

// A helper task that runs where the accumulator lives: split the rows between G warpgroups, cut
// every matrix like the accumulator of a wgmma (`acc`) and a column vector like its columns
// (`rhs`), and run `leaf` on each thread's fragments.
struct FragParam {
  std::string name;
  bool column_vector = false;
};

std::string fragment_task(const Plan& p, const std::string& task, const std::vector<FragParam>& ps,
                          const std::vector<std::string>& leaf, const std::string& comment) {
  std::vector<std::string> names;
  for (const FragParam& f : ps) names.push_back(f.name);
  const std::string sig = task + "(" + join(names) + ")";
  std::ostringstream o;
  o << comment;
  o << "variant " << p.variant(task, "tile") << " of " << sig << ": inner tunables(G) {\n";
  std::vector<std::string> args;
  for (const FragParam& f : ps) {
    if (f.column_vector) {
      args.push_back(f.name);
      continue;
    }
    o << "  " << f.name << "p = blocks(" << f.name << ", [64 * cdiv(M, 64 * G), *]);\n";
    args.push_back(f.name + "p[g, 0]");
  }
  o << "  prange g in G {\n    " << task << "(" << join(args) << ");\n  }\n}\n\n";
  o << "variant " << p.variant(task, "mma") << " of " << sig << ": inner tunables(N_MMA) {\n";
  args.clear();
  for (const FragParam& f : ps) {
    o << "  " << f.name << "p = mma(" << f.name << ", " << (f.column_vector ? "rhs" : "acc")
      << ", wgmma(64, N_MMA, 16));\n";
    args.push_back(f.name + "p[t]");
  }
  o << "  prange t in pieces(" << ps[0].name << "p) {\n    " << task << "(" << join(args) << ");\n  }\n}\n\n";
  o << "variant " << p.variant(task, "thread") << " of " << sig << ": leaf on(THREAD) {\n";
  for (const std::string& op : leaf) o << "  " << op << ";\n";
  o << "}\n";
  return o.str();
}

std::string pointwise_op(Pointwise f, const std::string& d, const std::string& s) {
  if (f == Pointwise::Neg) return std::string("scale(") + d + ", " + s + ", -1)";
  return std::string(pointwise_leaf(f)) + "(" + d + ", " + s + ")";
}

// The epilogue's leaf: X += bias (column broadcast), X += R, then the activation; the last op
// writes D (converting to its type), a plain convert when nothing is fused.
std::vector<std::string> epilogue_ops(const Plan& p, bool& writes_x) {
  const ContractionKernel& k = *p.kernel;
  std::vector<std::pair<std::string, std::string>> steps;  // (op, second operand)
  if (p.bias >= 0) steps.push_back({"add", "b"});
  if (p.residual >= 0) steps.push_back({"add", "R"});
  std::vector<std::string> ops;
  for (size_t i = 0; i < steps.size(); ++i) {
    const bool last = i + 1 == steps.size() && k.activation == Pointwise::Identity;
    ops.push_back(steps[i].first + "(" + (last ? "D" : "X") + ", X, " + steps[i].second + ")");
  }
  if (k.activation != Pointwise::Identity) ops.push_back(pointwise_op(k.activation, "D", "X"));
  if (ops.empty()) ops.push_back("convert(D, X)");
  writes_x = ops.size() > 1;
  return ops;
}

std::string helper_tasks(const Plan& p) {
  const ContractionKernel& k = *p.kernel;
  std::ostringstream o;
  const std::string& g = p.gemm;
  // gemm: the K step's product, C += A * B, down to the tensor cores.
  o << "// The K step, C += A * B: the tile's rows split between G warpgroups (each share rounded up to\n"
    << "// whole 64-row wgmma tiles, so every warpgroup starts on a tile boundary, edge tiles included),\n"
    << "// then the tensor-core operand distributions: warpgroup -> 4 warps, warp -> 32 threads.\n";
  o << "variant " << p.variant(g, "tile") << " of " << g << "(C, A, B): inner tunables(G) {\n"
    << "  Cp = blocks(C, [64 * cdiv(M, 64 * G), *]);\n  Ap = blocks(A, [64 * cdiv(M, 64 * G), *]);\n"
    << "  prange g in G {\n    " << g << "(Cp[g, 0], Ap[g, 0], B);\n  }\n}\n\n";
  o << "variant " << p.variant(g, "mma") << " of " << g << "(C, A, B): inner tunables(N_MMA) {\n"
    << "  Cp = mma(C, acc, wgmma(64, N_MMA, 16));\n  Ap = mma(A, lhs, wgmma(64, N_MMA, 16));\n"
    << "  Bp = mma(B, rhs, wgmma(64, N_MMA, 16));\n  prange t in pieces(Cp) {\n    " << g
    << "(Cp[t], Ap[t], Bp[t]);\n  }\n}\n\n";
  o << "variant " << p.variant(g, "thread") << " of " << g << "(C, A, B): leaf on(THREAD) {\n  mma(C, A, B);\n}\n\n";
  o << fragment_task(p, p.clear, {{"C"}}, {"fill(C, 0)"},
                     "// clear follows the accumulator's decomposition: block -> warpgroups -> warps -> threads.\n");
  o << "\n";
  bool writes_x = false;
  std::vector<std::string> ops = epilogue_ops(p, writes_x);
  std::vector<FragParam> eps = {{"D"}, {"X"}};
  if (p.bias >= 0) eps.push_back({"b", true});
  if (p.residual >= 0) eps.push_back({"R"});
  std::string what = "D = ";
  {
    std::string body = "X";
    if (p.bias >= 0) body += " + b";
    if (p.residual >= 0) body += " + R";
    if (k.activation != Pointwise::Identity) body = std::string(pointwise_name(k.activation)) + "(" + body + ")";
    what += body;
  }
  o << fragment_task(p, p.epilogue, eps, ops,
                     "// The epilogue, " + what + ", runs where the accumulator X lives: every tensor is cut like the\n"
                     "// accumulator" + std::string(p.bias >= 0 ? ", the bias b like its columns (b is named like the second\n"
                                                                     "// dimension N, so add(X, X, b) is a column broadcast)"
                                                                   : "") +
                         ". The last op converts to D's type as it writes D.\n");
  for (const Prologue& pro : p.prologues) {
    o << "\n";
    o << fragment_task(p, pro.task, {{"R"}, {"S"}}, {pointwise_op(pro.fn, "R", "S")},
                       "// The prologue R = " + std::string(pointwise_name(pro.fn)) + "(S) on each K step's tile of " +
                           p.params[pro.param].name + ", cut like a wgmma accumulator: a\n// thread's elements " +
                           (pro.side == Role::A ? "are its A fragments of the step (HOPPER-FACTS F1).\n"
                                                : "are rewritten in place in shared memory, where the B operand is read.\n"));
  }
  return o.str();
}

}  // namespace

std::string emit_tasks(const Plan& p) {
  const ContractionKernel& k = *p.kernel;
  std::ostringstream o;
  for (size_t b = 0; b < p.batch_tasks.size(); ++b) o << task_decl(p, p.batch_tasks[b], b);
  o << task_decl(p, p.mat_task, k.batch.size());
  o << "task " << p.gemm << "<E>(C: rw f32[M, N], A: r E[M, K], B: r E[K, N]);\n";
  o << "task " << p.clear << "(C: w f32[M, N]);\n";
  bool writes_x = false;
  epilogue_ops(p, writes_x);
  o << "task " << p.epilogue << "(D: w " << dtype_name(k.out.dtype) << "[M, N], X: " << (writes_x ? "rw" : "r")
    << " f32[M, N]";
  if (p.bias >= 0) o << ", b: r " << dtype_name(p.params[p.bias].dtype) << "[N]";
  if (p.residual >= 0) o << ", R: r " << dtype_name(p.params[p.residual].dtype) << "[M, N]";
  o << ");\n";
  for (const Prologue& pro : p.prologues) {
    const char* t = dtype_name(p.params[pro.param].dtype);
    o << "task " << pro.task << "(R: w " << t << "[M, N], S: r " << t << "[M, N]);\n";
  }
  o << "\n";
  for (size_t b = 0; b < p.batch_tasks.size(); ++b) o << batch_variant(p, b) << "\n";
  o << host_variant(p) << "\n" << block_variant(p) << "\n" << helper_tasks(p);
  return o.str();
}

}  // namespace loom::tx::detail
