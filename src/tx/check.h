// Semantic check of a tensor-expression program (docs/tensor-expressions.md): names resolve
// (tensors, loop indices, size symbols), ranks match, inputs are never written, and every index is
// quasi-affine (+, -, * by a constant, floor-division and mod by a positive constant over loop
// indices and size symbols). The result, a Model, numbers the tensors, loops and assignments that
// the polyhedral analysis (src/tx/poly.h), the interpreter (src/tx/interp.h) and the contraction
// recognizer (src/tx/recognize.h) work on. Test: tests/unit/tx_check_test.cpp, tests/errors/tx/.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tx/ast.h"

namespace loom::tx {

struct TensorInfo {
  std::string name;
  Role role = Role::In;
  DType dtype = DType::F32;
  const Stmt* decl = nullptr;
  std::vector<int> loops;  // for a `new` inside loops: the enclosing loops (each iteration owns a copy)
};

struct LoopInfo {
  const Stmt* stmt = nullptr;
  int parent = -1;  // enclosing loop, -1 at the top level
};

struct AssignInfo {
  const Stmt* stmt = nullptr;
  std::vector<int> loops;     // enclosing loops, outermost first
  std::vector<int> position;  // textual position in each enclosing block, outermost first (loops.size() + 1 entries)
  int target = -1;            // the written tensor
  std::vector<const Expr*> reads;  // every tensor access on the right side (and the left side of `+=` is read too)
};

struct Model {
  const TxProgram* program = nullptr;
  std::vector<std::string> sizes;  // size symbols, in order of first appearance
  std::vector<TensorInfo> tensors;
  std::vector<LoopInfo> loops;
  std::vector<AssignInfo> assigns;  // in program order
  std::map<const Expr*, int> tensor_of;  // every Access node -> its tensor
  std::map<const Expr*, int> loop_of;    // every Name node that is a loop index -> its loop

  int find_tensor(const std::string& name) const;
  const std::string& loop_var(int loop) const { return loops[loop].stmt->var; }
};

// Checks `p` and returns its model, or nothing when an error was reported.
std::optional<Model> check_tx(const TxProgram& p, DiagnosticEngine& diag);

// The value of an expression made of integer literals only (with + - * / % and unary -), if it is one.
std::optional<int64_t> constant_value(const Expr& e);

}  // namespace loom::tx
