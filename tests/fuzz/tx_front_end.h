// What the `.tx` fuzz target (tests/fuzz/fuzz_tx.cpp) does with one untrusted buffer, shared with its
// regression test (tests/unit/tx_fuzz_regression_test.cpp): the CLI's steps (src/tx/cli.cpp) —
// parse, the `loom fmt` contract (the printed text parses and printing is a fixed point), check, the
// ISL analysis, contraction recognition, and the lowering of each recognized kernel, whose task
// program must check with loom's own front end. Returns a description of the first broken contract,
// or "". Exceptions (InternalError: a loom bug) propagate to the caller; a lowering that refuses a
// kernel with a located CompileError is not a problem.
#pragma once

#include <string>

#include "loom/check.h"
#include "loom/frontend.h"
#include "tx/check.h"
#include "tx/lower.h"
#include "tx/poly.h"
#include "tx/recognize.h"

namespace loom::fuzz {

inline std::string tx_front_end_problem(const std::string& text) {
  SourceManager sm;
  const uint32_t file = sm.add("fuzz.tx", text);
  DiagnosticEngine diag(sm);
  tx::TxProgram p = tx::parse_tx(sm, file, diag);
  auto render = [&]() -> std::string {
    const std::string t = diag.format_text(true);
    (void)diag.format_json();
    return diag.has_errors() && t.empty() ? "errors reported but format_text() is empty" : "";
  };
  if (diag.has_errors()) return render();

  const std::string printed = tx::print_tx(p);
  SourceManager sm2;
  DiagnosticEngine diag2(sm2);
  tx::TxProgram reparsed = tx::parse_tx(sm2, sm2.add("formatted.tx", printed), diag2);
  if (diag2.has_errors())
    return "print_tx produced text that does not parse:\n" + printed + "\n" + diag2.format_text(false);
  if (tx::print_tx(reparsed) != printed) return "print_tx is not idempotent:\n" + printed;

  std::optional<tx::Model> m = tx::check_tx(p, diag);
  if (m) tx::analyze_tx(*m, diag);
  if (std::string r = render(); !r.empty()) return r;
  if (!m || diag.has_errors()) return "";
  tx::Recognition r = tx::recognize_contractions(*m, "fuzz", "fuzz.tx");
  (void)tx::format_recognition(*m, r);
  for (tx::ContractionKernel& k : r.kernels) {
    k.loc.source_file = file;
    std::string lowered;
    try {
      lowered = tx::lower_to_loom(k);
    } catch (const CompileError& e) {
      if (!e.diagnostic.loc.valid()) return "a lowering error without a location: " + e.diagnostic.message;
      continue;
    }
    SourceManager sm3;
    DiagnosticEngine diag3(sm3);
    Program prog = parse_program(sm3, sm3.add(k.name + ".loom", lowered), diag3);
    if (!diag3.has_errors()) (void)check_program(prog, diag3);
    if (diag3.has_errors()) return "the lowered program does not check:\n" + lowered + "\n" + diag3.format_text(false);
  }
  return "";
}

}  // namespace loom::fuzz
