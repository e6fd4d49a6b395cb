// Entry arguments for the CPU engines. See inputs.h.
#include "exec/inputs.h"

#include <cmath>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

namespace loom::exec {

const Arg* Args::find(const std::string& name) const {
  for (const Arg& a : args)
    if (a.name == name) return &a;
  return nullptr;
}

Arg* Args::find(const std::string& name) {
  for (Arg& a : args)
    if (a.name == name) return &a;
  return nullptr;
}

const Instance* entry_instance(const Program& p) {
  if (!p.mapping) return nullptr;
  for (const Instance& in : p.mapping->instances)
    if (in.entry) return &in;
  return nullptr;
}

Args make_inputs(const Program& p, const TaskTree& tree, const std::map<std::string, int64_t>& sizes, uint64_t seed,
                 const std::map<std::string, double>& scalars) {
  const Instance* entry = entry_instance(p);
  if (!entry) throw std::runtime_error("the program has no entry instance");
  const VariantDecl* v = p.find_variant(entry->variant.name);
  if (!v) throw std::runtime_error("entry instance '" + entry->name.name + "': unknown variant '" + entry->variant.name + "'");
  const TaskDecl* t = p.find_task(v->task.name);
  if (!t) throw std::runtime_error("entry variant '" + v->name.name + "': unknown task '" + v->task.name + "'");

  // Element types: the instantiated tree's entry node has them resolved; fall back to entry(...).
  std::map<std::string, DType> types;
  for (const TypeBinding& b : entry->entry_types)
    if (auto d = parse_dtype(b.type.name)) types[b.name.name] = *d;
  const TreeNode* node = tree.nodes.empty() ? nullptr : &tree.nodes[0];

  // Every dimension name must be given, and nothing else.
  std::set<std::string> dims, scalar_names;
  for (const Param& prm : t->params) {
    if (prm.is_tensor)
      for (const Ident& d : prm.dims) dims.insert(d.name);
    else
      scalar_names.insert(prm.name.name);
  }
  std::string missing, unknown;
  for (const std::string& d : dims)
    if (!sizes.count(d)) missing += (missing.empty() ? "" : ", ") + d;
  for (const auto& [k, val] : sizes)
    if (!dims.count(k)) unknown += (unknown.empty() ? "" : ", ") + k;
  if (!unknown.empty()) {
    std::string have;
    for (const std::string& d : dims) have += (have.empty() ? "" : ", ") + d;
    throw std::runtime_error("unknown size name(s) " + unknown + ": task '" + t->name.name + "' has dimensions " + have);
  }
  if (!missing.empty())
    throw std::runtime_error("missing size(s) for dimension(s) " + missing + " of task '" + t->name.name + "'");
  for (const auto& [k, val] : sizes)
    if (val < 0) throw std::runtime_error("size " + k + "=" + std::to_string(val) + " is negative");
  for (const auto& [k, val] : scalars)
    if (!scalar_names.count(k))
      throw std::runtime_error("'" + k + "' is not a scalar parameter of task '" + t->name.name + "'");

  std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
  for (const Param& prm : t->params) {
    if (!prm.is_tensor) continue;
    shapes.push_back({prm.name.name, {}});
    for (const Ident& d : prm.dims) shapes.back().second.push_back(sizes.at(d.name));
  }
  check_executor_elements(shapes);
  std::mt19937_64 rng(seed);
  Args out;
  for (size_t i = 0; i < t->params.size(); ++i) {
    const Param& prm = t->params[i];
    Arg a;
    a.name = prm.name.name;
    a.is_tensor = prm.is_tensor;
    if (node && i < node->args.size()) {
      a.dtype = node->args[i].dtype;
    } else if (auto d = parse_dtype(prm.elem.name)) {
      a.dtype = *d;
    } else {
      auto it = types.find(prm.elem.name);
      a.dtype = it == types.end() ? DType::F32 : it->second;
    }
    if (prm.is_tensor) {
      a.priv = prm.priv;
      std::vector<int64_t> ext;
      for (const Ident& d : prm.dims) ext.push_back(sizes.at(d.name));
      a.view = View(make_buffer(a.dtype, ext, a.name));
      if (reads(prm.priv)) {
        // rng() % 5 rather than a distribution: the same numbers with every standard library.
        for (double& x : a.view.buffer()->data) x = static_cast<double>(static_cast<int64_t>(rng() % 5) - 2);
      }
    } else {
      if (prm.elem.name != "f32") a.dtype = DType::I32;
      else a.dtype = DType::F32;
      auto it = scalars.find(a.name);
      a.scalar = round_to(a.dtype, it == scalars.end() ? 1.0 : it->second);
    }
    out.args.push_back(std::move(a));
  }
  return out;
}

Args copy_args(const Args& a) {
  Args out = a;
  std::map<const Buffer*, std::shared_ptr<Buffer>> copies;
  for (Arg& x : out.args) {
    if (!x.is_tensor) continue;
    const auto& b = x.view.buffer();
    if (!b) continue;
    if (x.view.extents() != b->extents)
      throw std::runtime_error("copy_args: argument '" + x.name + "' is not a whole buffer");
    auto& c = copies[b.get()];
    if (!c) c = std::make_shared<Buffer>(*b);
    x.view = View(c);
  }
  return out;
}

void check_executor_elements(const std::vector<std::pair<std::string, std::vector<int64_t>>>& tensors) {
  constexpr int64_t kMax = kMaxExecutorElements;
  int64_t total = 0, biggest_n = -1;
  std::string biggest;
  for (const auto& [name, extents] : tensors) {
    int64_t n = 1;
    std::string shape;
    for (const int64_t e : extents) {
      n = e != 0 && n > kMax / e ? kMax + 1 : n * e;  // (saturating: sizes of up to 15 digits multiply)
      shape += (shape.empty() ? "" : " x ") + std::to_string(e);
    }
    total = std::min(kMax + 1, total + n);
    if (n > biggest_n) {
      biggest_n = n;
      biggest = name + ": " + (shape.empty() ? "a scalar" : shape);
    }
  }
  if (total > kMax)
    throw std::runtime_error("the tensors at these sizes hold more than the CPU executor's " + std::to_string(kMax) +
                             " elements (the largest: " + biggest +
                             "); it runs the program element by element, for proofs at small sizes (e.g. M=129,N=257,K=65): "
                             "time large shapes on the GPU (bench/)");
}

std::map<std::string, int64_t> parse_sizes(const std::string& text) {
  std::map<std::string, int64_t> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw std::runtime_error("bad size '" + item + "': expected NAME=VALUE (e.g. M=129,N=257,K=65)");
    std::string name = item.substr(0, eq), val = item.substr(eq + 1);
    for (char ch : val)
      if (ch < '0' || ch > '9') throw std::runtime_error("bad size '" + item + "': the value must be a non-negative integer");
    if (val.size() > 15) throw std::runtime_error("bad size '" + item + "': the value is too large");
    if (!out.emplace(name, std::stoll(val)).second) throw std::runtime_error("size '" + name + "' is given twice");
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

std::string Mismatch::describe() const {
  std::string s = tensor + "[";
  for (size_t i = 0; i < index.size(); ++i) s += (i ? ", " : "") + std::to_string(index[i]);
  auto num = [](double v) {
    std::ostringstream o;
    o.precision(9);
    o << v;
    return o.str();
  };
  return s + "]: reference " + num(expected) + ", executor " + num(actual);
}

double ulp(DType t, double x) {
  if (t == DType::I32) return 1;
  int bits = t == DType::BF16 ? 8 : t == DType::F16 ? 11 : 24;
  int e = 0;
  std::frexp(std::max(std::fabs(x), 1e-30), &e);  // x = m * 2^e, 0.5 <= m < 1
  return std::ldexp(1.0, e - bits);
}

std::optional<Mismatch> compare_outputs(const Args& a, const Args& b, double tolerance, double ulps) {
  for (const Arg& x : a.args) {
    if (!x.is_tensor || !writes(x.priv)) continue;
    const Arg* y = b.find(x.name);
    if (!y || !y->is_tensor || x.view.extents() != y->view.extents())
      throw std::runtime_error("compare_outputs: argument '" + x.name + "' differs in kind or shape");
    const auto& da = x.view.buffer()->data;
    const auto& db = y->view.buffer()->data;
    for (size_t k = 0; k < da.size(); ++k) {
      const double u = da[k], w = db[k];
      const bool nu = std::isnan(u), nw = std::isnan(w);
      bool same = (nu && nw) ||
                  (!nu && !nw &&
                   (u == w || std::fabs(u - w) <= tolerance ||
                    std::fabs(u - w) <= ulps * ulp(x.view.dtype(), std::max(std::fabs(u), std::fabs(w)))));
      if (same) continue;
      Mismatch m;
      m.tensor = x.name;
      m.expected = u;
      m.actual = w;
      size_t rest = k;
      m.index.assign(x.view.extents().size(), 0);
      for (size_t d = m.index.size(); d-- > 0;) {
        const auto e = static_cast<size_t>(x.view.extents()[d]);
        m.index[d] = static_cast<int64_t>(rest % e);
        rest /= e;
      }
      return m;
    }
  }
  return std::nullopt;
}

std::vector<ExecArg> exec_args(const Args& a) {
  std::vector<ExecArg> out;
  for (const Arg& x : a.args) {
    if (x.is_tensor) out.emplace_back(x.view);
    else out.emplace_back(x.scalar);
  }
  return out;
}

int64_t count_nan(const Arg& a) {
  if (!a.is_tensor || !a.view.buffer()) return 0;
  int64_t n = 0;
  for (double x : a.view.buffer()->data) n += std::isnan(x) ? 1 : 0;
  return n;
}

}  // namespace loom::exec
