// loom/frontend.h — text in, program out: parsing, canonical printing, structural dumps.
//
//   SourceManager sm; uint32_t f = sm.add("gemm.loom", text);
//   DiagnosticEngine diag(sm);
//   Program p = parse_program(sm, f, diag);        // diag.has_errors() on bad syntax
//   std::string canon = format_program(p);          // what `loom fmt` prints
//
// Tests: tests/unit/parser_test.cpp, tests/unit/roundtrip_test.cpp.
#pragma once

#include <string>

#include "loom/ast.h"

namespace loom {

// Parses a whole buffer. Syntax errors are reported to `diag`; the returned program holds what was
// understood (later stages must not run when diag.has_errors()).
Program parse_program(const SourceManager& sm, uint32_t file, DiagnosticEngine& diag);

// The canonical form: fixed indentation and spacing, one statement per line, leading comments kept.
// parse_program(format_program(p)) is the same program as p (tests/unit/roundtrip_test.cpp).
std::string format_program(const Program& p);

// A structural dump without locations or comments (`loom compile --emit=ast`); two programs are the
// same program exactly when their dumps are equal.
std::string dump_program(const Program& p);

// One expression in canonical form (used in diagnostics and by the printer).
std::string format_expr(const Expr& e);
// A specialized mapping's condition as written: `when(LHS CMP RHS)`.
std::string format_condition(const MappingCondition& c);

}  // namespace loom
