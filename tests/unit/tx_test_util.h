// Helpers for the tensor-expression tests (tests/unit/tx_*_test.cpp): the examples under
// examples/tx/, running parse + check + polyhedral analysis on a string, and mapping its SIMT
// statements onto threads.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "test_util.h"
#include "tx/ast.h"
#include "tx/check.h"
#include "tx/poly.h"
#include "tx/recognize.h"
#include "tx/thread_map.h"

namespace loom::test {

inline std::vector<std::filesystem::path> tx_example_files() {
  std::vector<std::filesystem::path> out;
  for (auto& f : std::filesystem::directory_iterator(source_dir() + "/examples/tx"))
    if (f.path().extension() == ".tx") out.push_back(f.path());
  std::sort(out.begin(), out.end());
  return out;
}

// A program with its model and diagnostics, kept together (the model points into the program).
struct TxCompiled {
  SourceManager sm;
  std::unique_ptr<DiagnosticEngine> diag;
  tx::TxProgram program;
  std::optional<tx::Model> model;
  tx::PolyModel poly;

  std::string errors() const { return diag->format_text(false); }
};

// Parses, checks and analyzes `text`; the model is empty when an error came before the analysis.
inline std::unique_ptr<TxCompiled> compile_tx(const std::string& text, const std::string& name = "test.tx") {
  auto c = std::make_unique<TxCompiled>();
  uint32_t f = c->sm.add(name, text);
  c->diag = std::make_unique<DiagnosticEngine>(c->sm);
  c->program = tx::parse_tx(c->sm, f, *c->diag);
  if (c->diag->has_errors()) return c;
  c->model = tx::check_tx(c->program, *c->diag);
  if (c->model) c->poly = tx::analyze_tx(*c->model, *c->diag);
  return c;
}

// The SIMT kernels of `text` (the statements outside the recognized contraction kernels).
struct Mapped {
  std::unique_ptr<TxCompiled> c;
  std::vector<tx::SimtMapping> maps;
  std::string errors() const { return c->errors(); }
};

inline Mapped map_text(const std::string& text, const std::string& name = "test.tx") {
  Mapped r;
  r.c = compile_tx(text, name);
  if (!r.c->model || r.c->diag->has_errors()) return r;
  tx::Recognition rec = tx::recognize_contractions(*r.c->model, "k", name);
  std::set<int> absorbed;
  for (const auto& s : rec.statements) absorbed.insert(s.begin(), s.end());
  r.maps = tx::map_threads(*r.c->model, r.c->poly, absorbed, std::filesystem::path(name).stem().string(), rec.kernels.size(), *r.c->diag);
  return r;
}

inline Mapped map_example(const std::string& stem) {
  const std::string path = source_dir() + "/examples/tx/" + stem + ".tx";
  return map_text(read_file(path), stem + ".tx");
}

}  // namespace loom::test
