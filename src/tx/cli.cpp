// The `.tx` commands of the `loom` tool. See cli.h.
#include "tx/cli.h"

#include <cinttypes>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>

#include "exec/inputs.h"
#include "tx/cpu_compare.h"
#include "tx/interp.h"
#include "tx/lower.h"
#include "tx/poly.h"
#include "tx/recognize.h"
#include "tx/simt_cuda.h"
#include "tx/thread_map.h"

namespace loom::tx {
namespace {

int finish(const DiagnosticEngine& diag, bool json, std::string& err) {
  err += json ? diag.format_json() : diag.format_text();
  return diag.has_errors() ? 1 : 0;
}

// "M=129,N=257" -> sizes; false (with `why`) when malformed.
bool parse_sizes(const std::string& text, std::map<std::string, int64_t>& out, std::string& why) {
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      why = "--size takes NAME=VALUE pairs separated by commas, found '" + item + "'";
      return false;
    }
    const std::string v = item.substr(eq + 1);
    char* end = nullptr;
    const long long n = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || n < 1 || n > (1LL << 31)) {
      why = "size " + item.substr(0, eq) + " needs a positive integer up to 2^31, found '" + v + "'";
      return false;
    }
    out[item.substr(0, eq)] = n;
  }
  return true;
}

std::string summary(const std::string& name, const Array& a) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the fp32 bit patterns
  double sum = 0, abs_sum = 0;
  for (float v : a.data) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    for (int b = 0; b < 4; ++b) h = (h ^ ((bits >> (8 * b)) & 0xff)) * 1099511628211ull;
    sum += v;
    abs_sum += std::fabs(v);
  }
  std::ostringstream o;
  o << name << ": " << dtype_name(a.dtype) << "[";
  for (size_t d = 0; d < a.extents.size(); ++d) o << (d ? ", " : "") << a.extents[d];
  char hash[32];
  std::snprintf(hash, sizeof hash, "%016" PRIx64, h);
  o.precision(9);
  o << "] sum=" << sum << " mean_abs=" << (a.data.empty() ? 0 : abs_sum / a.data.size()) << " checksum=" << hash;
  o << " first=[";
  for (size_t i = 0; i < std::min<size_t>(4, a.data.size()); ++i) o << (i ? ", " : "") << a.data[i];
  o << "]\n";
  return o.str();
}

// The kernels' base name: the file's stem (recognize_contractions names several `stem_<out>`).
std::string kernel_name(const std::string& path) {
  const std::string stem = std::filesystem::path(path).stem().string();
  return stem.empty() ? "kernel" : stem;
}

// The checked model of a parsed program with its polyhedral checks done; nullopt after an error.
std::optional<Model> analyzed(const TxProgram& p, DiagnosticEngine& diag, PolyModel& poly) {
  std::optional<Model> m = check_tx(p, diag);
  if (!m) return std::nullopt;
  poly = analyze_tx(*m, diag);
  if (diag.has_errors()) return std::nullopt;
  return m;
}

// The SIMT kernels of `m`: every statement group outside the recognized contraction kernels,
// mapped onto threads (src/tx/thread_map.h); errors go to `diag`.
std::vector<SimtMapping> simt_kernels(const Model& m, const PolyModel& poly, const Recognition& r, const std::string& path,
                                      DiagnosticEngine& diag) {
  std::set<int> absorbed;
  for (const std::vector<int>& k : r.statements) absorbed.insert(k.begin(), k.end());
  return map_threads(m, poly, absorbed, kernel_name(path), r.kernels.size(), diag);
}

// Each recognized kernel of `m` lowered to its task program, in program order, and every other
// statement group as a SIMT kernel's CUDA artifact (when `simt` is given). With `for_run` (`loom run
// --cpu`, which compares the lowered task programs with the interpreter), a statement outside every
// tensor-core kernel is an error: SIMT kernels have no task program to run on the CPU executor (their
// own CPU evaluator is tested in tests/unit/tx_simt_test.cpp).
void lower_model(const Model& m, const PolyModel& poly, const std::string& path, uint32_t file, DiagnosticEngine& diag,
                 std::vector<LoweredProgram>& programs, std::vector<SimtArtifact>* simt, bool for_run = false) {
  Recognition r = recognize_contractions(m, kernel_name(path), path);
  if (for_run) {
    for (const Recognition::Rejected& x : r.rejected) {
      const SourceLoc loc = m.assigns.at(static_cast<size_t>(x.assign)).stmt->loc;
      auto& d = diag.error(loc, "cannot compare this statement with a lowered program: it is not part of a tensor-core kernel, and "
                                "`loom run --cpu` compares only those (" + x.reason + ")");
      d.hint = "`loom run --cpu --interpret-only` only interprets the file; `loom compile --emit=mapping` shows its SIMT kernel";
    }
  }
  std::vector<SimtMapping> maps;
  if (!for_run) maps = simt_kernels(m, poly, r, path, diag);
  if (diag.has_errors()) return;
  try {
    for (ContractionKernel& k : r.kernels) {
      k.loc.source_file = file;
      const SourceLoc loc{file, uint32_t(std::max(k.loc.line, 0)), uint32_t(std::max(k.loc.col, 0))};
      programs.push_back({k.name, loc, lower_to_loom(k)});
    }
    if (simt) {
      const std::string source = std::filesystem::path(path).filename().string();
      for (const SimtMapping& x : maps) simt->push_back(emit_simt_cuda(m, x.kernel, source.empty() ? path : source));
    } else if (!for_run && !maps.empty() && r.kernels.empty()) {
      auto& d = diag.error(maps[0].kernel.loc, "this program has no tensor-core kernel, so there is no task program to print: its kernels are SIMT kernels, which go straight to CUDA");
      d.hint = "`loom compile --emit=mapping` shows their thread mapping, `--emit=cuda` their code";
    }
  } catch (const CompileError& e) {
    diag.report(e.diagnostic);
  }
}

// Sizes not given with --size get defaults that are not tile multiples (67, 45, 37, ... in order of
// first appearance), small batches (3) for the recognized kernels' batch dimensions, so that
// `loom run --cpu x.tx` alone compares edge tiles. Returns the names it set.
std::vector<std::string> default_sizes(const Model& m, const std::string& path, std::map<std::string, int64_t>& sizes) {
  static const int64_t kDefaults[] = {67, 45, 37, 29, 21, 13, 19, 11, 7, 5};
  std::set<std::string> batch;
  for (const ContractionKernel& k : recognize_contractions(m, kernel_name(path), path).kernels)
    batch.insert(k.batch.begin(), k.batch.end());
  std::vector<std::string> set;
  size_t next = 0;
  for (const std::string& s : m.sizes) {
    if (sizes.count(s)) continue;
    sizes[s] = batch.count(s) ? 3 : kDefaults[std::min(next++, std::size(kDefaults) - 1)];
    set.push_back(s);
  }
  return set;
}

}  // namespace

int run_tx_command(const TxCommand& c, std::string& out, std::string& err) {
  SourceManager sm;
  const uint32_t file = sm.add(c.path, c.text);
  DiagnosticEngine diag(sm);
  TxProgram p = parse_tx(sm, file, diag);
  if (diag.has_errors()) return finish(diag, c.json_diagnostics, err);
  if (c.command == "fmt") {
    for (const SourceLoc& loc : p.misplaced_comments) {
      auto& d = diag.error(loc, "`loom fmt` keeps only the comment lines at the top of a .tx file; this comment would be lost");
      d.hint = "move the comment into the file's header";
    }
    if (diag.has_errors()) return finish(diag, c.json_diagnostics, err);
    out = print_tx(p);
    return finish(diag, c.json_diagnostics, err);
  }
  if (c.command == "compile" && c.emit == "tx") {
    out = print_tx(p);
    return finish(diag, c.json_diagnostics, err);
  }
  std::optional<Model> m = check_tx(p, diag);
  if (!m) return finish(diag, c.json_diagnostics, err);
  PolyModel poly = analyze_tx(*m, diag);
  if (diag.has_errors()) return finish(diag, c.json_diagnostics, err);
  if (c.command == "check") return finish(diag, c.json_diagnostics, err);
  if (c.command == "compile") {
    if (c.emit == "deps") {
      out = format_poly(*m, poly);
    } else if (c.emit == "loom") {
      std::vector<LoweredProgram> programs;
      lower_model(*m, poly, c.path, file, diag, programs, nullptr);
      for (size_t i = 0; i < programs.size(); ++i)
        out += (i ? "\n// ==== kernel " + programs[i].kernel + "\n" : std::string()) + programs[i].text;
    } else if (c.emit == "mapping") {
      std::vector<SimtMapping> maps = simt_kernels(*m, poly, recognize_contractions(*m, kernel_name(c.path), c.path), c.path, diag);
      if (!diag.has_errors() && maps.empty()) out = "// no SIMT kernels: every statement is part of a tensor-core kernel (--emit=contraction)\n";
      else out = format_mapping(*m, maps);
    } else if (c.emit == "contraction") {
      out = format_recognition(*m, recognize_contractions(*m, kernel_name(c.path), c.path));
    } else {
      auto& d = diag.error(SourceLoc{}, "a .tx file compiles with --emit=tx, deps, contraction, mapping, loom or a back-end kind, not '" + c.emit + "'");
      d.hint = "loom compile x.tx --emit=contraction shows the recognized tensor-core kernels";
    }
    return finish(diag, c.json_diagnostics, err);
  }
  // run --cpu
  std::map<std::string, int64_t> sizes;
  std::string why;
  if (!parse_sizes(c.sizes, sizes, why)) {
    diag.error(SourceLoc{}, why);
    return finish(diag, c.json_diagnostics, err);
  }
  const std::vector<std::string> defaulted = default_sizes(*m, c.path, sizes);
  try {  // (the interpreter and the executor hold every tensor: refuse sizes they cannot hold)
    std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
    for (size_t t = 0; t < m->tensors.size(); ++t) shapes.push_back({m->tensors[t].name, tensor_extents(*m, static_cast<int>(t), sizes)});
    exec::check_executor_elements(shapes);
  } catch (const std::runtime_error& e) {
    diag.error(SourceLoc{}, e.what());
    return finish(diag, c.json_diagnostics, err);
  }
  try {
    std::map<std::string, Array> inputs = random_inputs(*m, sizes, c.seed);
    std::map<std::string, Array> outputs = interpret_tx(*m, sizes, inputs);
    std::ostringstream o;
    o << "interpreted " << c.path << " (seed " << c.seed << ";";
    for (const auto& [k, v] : sizes) o << " " << k << "=" << v;
    if (!defaulted.empty()) {
      o << "; default:";
      for (const std::string& d : defaulted) o << " " << d;
    }
    o << ")\n";
    for (const auto& [name, a] : outputs) o << summary(name, a);
    out = o.str();
    if (c.interpret_only) return finish(diag, c.json_diagnostics, err);
    std::vector<LoweredProgram> programs;
    lower_model(*m, poly, c.path, file, diag, programs, nullptr, /*for_run=*/true);
    if (diag.has_errors()) return finish(diag, c.json_diagnostics, err);
    CompareOptions co;
    co.seed = c.seed;
    co.race_check = c.race_check;
    co.tolerance = c.tolerance;
    const Comparison r = compare_lowered(*m, programs, sizes, inputs, outputs, co);
    o << "compared with the lowered program" << (programs.size() == 1 ? "" : "s");
    for (size_t i = 0; i < programs.size(); ++i) o << (i ? ", " : " ") << programs[i].kernel;
    o << " on the CPU executor (same inputs):\n" << r.format();
    out = o.str();
    for (const OutputComparison& x : r.outputs) {
      if (x.ok) continue;
      std::ostringstream msg;
      msg.precision(8);
      msg << "the lowered program disagrees with the interpreter on '" << x.tensor << "': at [";
      for (size_t d = 0; d < x.bad.size(); ++d) msg << (d ? ", " : "") << x.bad[d];
      msg << "] interpreted " << x.bad_interpreted << ", lowered " << x.bad_lowered << ", allowed difference " << x.bad_allowed
          << " (" << x.bad_chain << ")";
      auto& d = diag.error(x.writer, msg.str());
      d.hint = "`loom compile --emit=loom` prints the lowered program; this is a bug of the lowering unless the program was edited";
    }
  } catch (const CompileError& e) {
    diag.report(e.diagnostic);
  }
  return finish(diag, c.json_diagnostics, err);
}

int lower_tx_file(const std::string& path, const std::string& text, std::vector<std::pair<std::string, std::string>>& programs,
                  std::vector<SimtArtifact>& simt, std::string& err, bool json_diagnostics) {
  SourceManager sm;
  const uint32_t file = sm.add(path, text);
  DiagnosticEngine diag(sm);
  TxProgram p = parse_tx(sm, file, diag);
  if (diag.has_errors()) return finish(diag, json_diagnostics, err);
  PolyModel poly;
  std::optional<Model> m = analyzed(p, diag, poly);
  std::vector<LoweredProgram> lowered;
  if (m) lower_model(*m, poly, path, file, diag, lowered, &simt);
  for (LoweredProgram& l : lowered) programs.emplace_back(l.kernel, std::move(l.text));
  return finish(diag, json_diagnostics, err);
}

}  // namespace loom::tx
