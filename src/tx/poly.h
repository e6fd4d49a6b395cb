// Polyhedral model of a checked tensor-expression program, computed with ISL (libisl's C API):
// iteration domains (one per assignment: the box of its enclosing loops), access relations (one
// per tensor access; a `new` buffer inside loops is indexed by those loops too, since each
// iteration owns a copy), the original sequential schedule, and the flow, anti and output
// dependences between assignments. Two checks run on it and report located errors:
//   - every access stays inside its tensor's declared extents, for every value of the size symbols
//     (an access that can leave them is an error, with an example point);
//   - no `par` loop carries a dependence (two different iterations touching one element, one of
//     them writing); the message names the dependence's kind, tensor, statements and iterations.
// Test: tests/unit/tx_poly_test.cpp.
#pragma once

#include <string>
#include <vector>

#include "tx/check.h"

namespace loom::tx {

struct TxAccess {
  int assign = -1;
  int tensor = -1;
  bool write = false;
  const Expr* expr = nullptr;
  std::string relation;  // ISL text: [sizes] -> { S2[i, j, k] -> A[i, k] }
};

enum class DepKind { Flow, Anti, Output };
const char* dep_kind_name(DepKind k);  // "flow", "anti", "output"

struct TxDependence {
  DepKind kind = DepKind::Flow;
  int tensor = -1;
  int source = -1, sink = -1;  // assignments
  std::string relation;        // ISL text: { S_source[...] -> S_sink[...] }
};

struct PolyModel {
  std::vector<std::string> domains;  // per assignment, ISL text
  std::vector<TxAccess> accesses;
  std::string schedule;              // ISL text of the sequential schedule (a union map)
  std::vector<TxDependence> deps;    // non-empty dependences, per kind, tensor, source and sink
};

// Loops nested deeper than this are a user error (located at the first loop too deep).
constexpr size_t kMaxLoopDepth = 16;

// Builds the model of `m` and runs the bounds and `par` checks, reporting errors to `diag`.
PolyModel analyze_tx(const Model& m, DiagnosticEngine& diag);

// `loom compile x.tx --emit=deps`: the model as ISL prints it.
std::string format_poly(const Model& m, const PolyModel& p);

// The ISL statement name of assignment `a` ("S0", "S1", ...).
std::string stmt_name(int a);

}  // namespace loom::tx
