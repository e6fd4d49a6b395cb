// The interpreter against the lowered programs on the CPU executor. See cpu_compare.h.
#include "tx/cpu_compare.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>

#include "exec/executor.h"
#include "exec/inputs.h"
#include "loom/check.h"
#include "loom/frontend.h"
#include "passes/pipeline.h"

namespace loom::tx {
namespace {

[[noreturn]] void user_error(SourceLoc loc, const std::string& msg, const std::string& hint = "") {
  Diagnostic d;
  d.loc = loc;
  d.message = msg;
  d.hint = hint;
  throw CompileError(d);
}

// One lowered program, checked, with its entry task, ABI layouts and every mapping's event IR.
struct Prepared {
  const LoweredProgram* source = nullptr;
  Program program;
  TaskTree tree;
  const TaskDecl* entry = nullptr;
  std::set<std::string> col_major;  // entry parameters declared column-major at the ABI
  std::vector<ir::Function> mappings;  // [0] the default, then the alternatives that can run
  std::vector<std::string> names;      // "the default mapping", "when(fastest) [k.loom:140]"
};

Prepared prepare(const LoweredProgram& lp, std::vector<std::string>& not_run) {
  Prepared p;
  p.source = &lp;
  SourceManager sm;
  const std::string file = lp.kernel + ".loom";
  const uint32_t id = sm.add(file, lp.text);
  DiagnosticEngine diag(sm);
  p.program = parse_program(sm, id, diag);
  std::optional<TaskTree> tree;
  if (!diag.has_errors()) tree = check_program(p.program, diag);
  if (diag.has_errors() || !tree)
    LOOM_INTERNAL("the lowered program of " << lp.kernel << " does not check:\n" << diag.format_text());
  p.tree = std::move(*tree);
  const Instance* entry = exec::entry_instance(p.program);
  const VariantDecl* v = entry ? p.program.find_variant(entry->variant.name) : nullptr;
  p.entry = v ? p.program.find_task(v->task.name) : nullptr;
  if (!p.entry) LOOM_INTERNAL("the lowered program of " << lp.kernel << " has no entry task");
  for (const LayoutSpec& l : entry->layouts)
    for (const Ident& a : l.attrs)
      if (a.name == "col_major") p.col_major.insert(l.arg.name);
  for (MappingUnit& u : mapping_units(p.program, p.tree)) {
    std::string name = u.when ? format_condition(*u.when) + " [" + file + ":" + std::to_string(u.when->loc.line) + "]"
                              : std::string("the default mapping");
    // A condition on the extents says where a specialization may run; it may not cover the others,
    // so such a mapping is not compared (the lowering emits only when(fastest) alternatives).
    if (u.when && !u.when->fastest) {
      not_run.push_back(lp.kernel + ": " + name);
      continue;
    }
    p.mappings.push_back(lower_to_event_ir(u.program, u.tree));
    p.names.push_back(std::move(name));
  }
  return p;
}

// The tensor `a` (in the .tx program's index order) as the entry argument's logical order: the same
// for a row-major parameter, the two inner dimensions swapped for a column-major one.
std::vector<int64_t> logical_extents(const Array& a, bool col_major) {
  std::vector<int64_t> e = a.extents;
  if (col_major && e.size() >= 2) std::swap(e[e.size() - 1], e[e.size() - 2]);
  return e;
}

// Flat index in `a` (tx order) of the logical element with row-major flat index `flat`.
size_t tx_index(const std::vector<int64_t>& logical, bool col_major, size_t flat) {
  if (!col_major || logical.size() < 2) return flat;
  const size_t r = static_cast<size_t>(logical[logical.size() - 2]), c = static_cast<size_t>(logical.back());
  const size_t mat = r * c, base = flat / mat * mat, in = flat % mat;
  return base + (in % c) * r + in / c;  // logical (i, j) -> tx (j, i)
}

Array zeros(const Model& m, int t, const std::map<std::string, int64_t>& sizes) {
  Array a;
  a.dtype = m.tensors[static_cast<size_t>(t)].dtype;
  a.extents = tensor_extents(m, t, sizes);
  size_t n = 1;
  for (int64_t e : a.extents) n *= static_cast<size_t>(e);
  a.data.assign(n, 0.0f);
  return a;
}

using Env = std::map<std::string, Array>;

// Runs mapping `which` of `p` on the tensors of `env`, updating the ones it writes.
void run_program(const Model& m, const Prepared& p, size_t which, const std::map<std::string, int64_t>& sizes, Env& env,
                 const CompareOptions& opt) {
  const std::string& kernel = p.source->kernel;
  // The entry task's dimensions, from the tensors bound to its parameters.
  std::map<std::string, int64_t> dims;
  for (const Param& prm : p.entry->params) {
    if (!prm.is_tensor) LOOM_INTERNAL("the lowered entry task " << kernel << " has a scalar parameter " << prm.name.name);
    auto it = env.find(prm.name.name);
    if (it == env.end()) {
      const int t = m.find_tensor(prm.name.name);
      if (t < 0) LOOM_INTERNAL("the lowered entry task " << kernel << " has a parameter " << prm.name.name << " that is no tensor of the program");
      it = env.emplace(prm.name.name, zeros(m, t, sizes)).first;
    }
    const std::vector<int64_t> e = logical_extents(it->second, p.col_major.count(prm.name.name) > 0);
    if (e.size() != prm.dims.size())
      LOOM_INTERNAL("parameter " << prm.name.name << " of " << kernel << " has rank " << prm.dims.size() << ", its tensor " << e.size());
    for (size_t d = 0; d < e.size(); ++d) {
      auto [at, fresh] = dims.emplace(prm.dims[d].name, e[d]);
      if (!fresh && at->second != e[d])
        LOOM_INTERNAL("dimension " << prm.dims[d].name << " of " << kernel << " is both " << at->second << " and " << e[d]);
    }
  }
  exec::Args args = exec::make_inputs(p.program, p.tree, dims, opt.seed);  // types; written ones poisoned
  for (exec::Arg& a : args.args) {
    if (!reads(a.priv)) continue;
    const Array& src = env.at(a.name);
    const bool cm = p.col_major.count(a.name) > 0;
    std::vector<double>& data = a.view.buffer()->data;
    for (size_t i = 0; i < data.size(); ++i) data[i] = exec::round_to(a.dtype, src.data[tx_index(a.view.extents(), cm, i)]);
  }
  exec::ExecOptions eo;
  eo.detect_races = opt.race_check;
  const exec::ExecResult r = exec::execute(p.mappings[which], exec::exec_args(args), opt.seed, eo);
  if (!r.ok)
    user_error(p.source->loc,
               "the lowered program of kernel `" + kernel + "` (" + p.names[which] + ") failed on the CPU executor (seed " +
                   std::to_string(opt.seed) + "): " + r.error,
               "`loom compile --emit=loom` prints the program; `loom run --cpu` on it shows the same");
  for (const exec::Arg& a : args.args) {
    if (!writes(a.priv)) continue;
    Array& dst = env.at(a.name);
    const bool cm = p.col_major.count(a.name) > 0;
    const std::vector<double>& data = a.view.buffer()->data;
    for (size_t i = 0; i < data.size(); ++i) dst.data[tx_index(a.view.extents(), cm, i)] = static_cast<float>(data[i]);
  }
}

std::string index_text(const std::vector<int64_t>& idx) {
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

std::vector<int64_t> unflatten(const std::vector<int64_t>& extents, size_t flat) {
  std::vector<int64_t> idx(extents.size());
  for (size_t d = extents.size(); d-- > 0;) {
    idx[d] = static_cast<int64_t>(flat % static_cast<size_t>(extents[d]));
    flat /= static_cast<size_t>(extents[d]);
  }
  return idx;
}

std::string num(double v) {
  std::ostringstream o;
  o.precision(8);
  o << v;
  return o.str();
}

// Folds one chain's value of an output into its comparison.
void compare_output(const Array& want, const Array& got, double tolerance, const std::string& chain, OutputComparison& c) {
  double scale = 0;
  for (float v : want.data) scale = std::max(scale, double(std::fabs(v)));
  const double floor = exec::ulp(want.dtype, scale);
  for (size_t i = 0; i < want.data.size(); ++i) {
    const double w = want.data[i], g = got.data[i];
    const double err = std::isnan(g) || std::isnan(w) ? INFINITY : std::fabs(g - w);
    const double allowed =
        tolerance >= 0 ? tolerance : 2 * exec::ulp(want.dtype, std::max(std::fabs(w), std::fabs(g))) + floor;
    if (c.worst.empty() || err > c.max_error) {
      c.max_error = err;
      c.worst = unflatten(want.extents, i);
      c.interpreted = w;
      c.lowered = g;
      c.allowed = allowed;
    }
    if (!(err <= allowed) && (c.ok || err - allowed > c.bad_excess)) {
      c.ok = false;
      c.bad_excess = err - allowed;
      c.bad = unflatten(want.extents, i);
      c.bad_interpreted = w;
      c.bad_lowered = g;
      c.bad_allowed = allowed;
      c.bad_chain = chain;
    }
  }
}

}  // namespace

bool Comparison::ok() const {
  return std::all_of(outputs.begin(), outputs.end(), [](const OutputComparison& c) { return c.ok; });
}

std::string Comparison::format() const {
  std::ostringstream o;
  for (const OutputComparison& c : outputs) {
    o << c.tensor << ": " << dtype_name(c.dtype) << index_text(c.extents) << " max |lowered - interpreted| " << num(c.max_error);
    if (c.max_error > 0)
      o << " at " << index_text(c.worst) << " (interpreted " << num(c.interpreted) << ", lowered " << num(c.lowered)
        << "; allowed there " << num(c.allowed) << ")";
    if (c.ok) {
      o << ": match\n";
    } else {
      o << ": MISMATCH at " << c.tensor << index_text(c.bad) << ": interpreted " << num(c.bad_interpreted) << ", lowered "
        << num(c.bad_lowered) << ", allowed " << num(c.bad_allowed) << " (" << c.bad_chain << ")\n";
    }
  }
  o << (ok() ? "match" : "mismatch") << " (" << chains << " mapping chain" << (chains == 1 ? "" : "s") << " on the CPU executor";
  if (!not_run.empty()) {
    o << "; not run, conditioned on extents:";
    for (const std::string& n : not_run) o << " " << n;
  }
  o << ")\n";
  return o.str();
}

Comparison compare_lowered(const Model& m, const std::vector<LoweredProgram>& programs,
                           const std::map<std::string, int64_t>& sizes, const std::map<std::string, Array>& inputs,
                           const std::map<std::string, Array>& interpreted, const CompareOptions& opt) {
  Comparison result;
  std::vector<Prepared> prepared;
  for (const LoweredProgram& lp : programs) prepared.push_back(prepare(lp, result.not_run));

  // Every `out` tensor must be written by some program.
  std::map<std::string, SourceLoc> written;  // by the last program that writes it
  for (const Prepared& p : prepared)
    for (const Param& prm : p.entry->params)
      if (writes(prm.priv)) written[prm.name.name] = p.source->loc;
  for (const TensorInfo& t : m.tensors) {
    if (t.role != Role::Out) continue;
    if (!written.count(t.name))
      user_error(t.decl->loc, "cannot compare '" + t.name + "': no lowered program writes it",
                 "its statements are not part of a tensor-core kernel; `loom run --cpu --interpret-only` only interprets");
    OutputComparison c;
    c.tensor = t.name;
    c.dtype = t.dtype;
    c.extents = interpreted.at(t.name).extents;
    c.writer = written.at(t.name);
    result.outputs.push_back(std::move(c));
  }

  // The chains: every default, then each alternative of each program in turn.
  std::vector<std::vector<size_t>> chains{std::vector<size_t>(prepared.size(), 0)};
  for (size_t k = 0; k < prepared.size(); ++k)
    for (size_t a = 1; a < prepared[k].mappings.size(); ++a) {
      chains.push_back(std::vector<size_t>(prepared.size(), 0));
      chains.back()[k] = a;
    }
  for (const std::vector<size_t>& chain : chains) {
    Env env = inputs;
    std::string which;
    for (size_t k = 0; k < prepared.size(); ++k) {
      run_program(m, prepared[k], chain[k], sizes, env, opt);
      if (chain[k] != 0 || prepared.size() == 1)
        which += (which.empty() ? "" : ", ") + prepared[k].source->kernel + ": " + prepared[k].names[chain[k]];
    }
    if (which.empty()) which = "every default mapping";
    for (OutputComparison& c : result.outputs) compare_output(interpreted.at(c.tensor), env.at(c.tensor), opt.tolerance, which, c);
    ++result.chains;
  }
  return result;
}

}  // namespace loom::tx
