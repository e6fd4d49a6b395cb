// The tensor-expression language (`.tx` files, docs/tensor-expressions.md): syntax tree, parser
// and printer. A program is a list of items: tensor declarations (`in A: bf16[M, K];`,
// `out C: f32[M, N];`, `new T: f32[M, K];`), loops (`par N i { ... }`, `seq K k { ... }`) and
// assignments (`C[i, j] += A[i, k] * B[k, j];`, `=`). Index and value expressions share one node
// type; the checker (src/tx/check.h) decides which expressions are quasi-affine indices.
//
// The printer is canonical and round-trips: parse(print(p)) is `same` as p (locations aside).
// Tests: tests/unit/tx_parse_test.cpp, tests/errors/tx/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/diagnostics.h"
#include "loom/machine.h"

namespace loom::tx {

struct Expr {
  enum class Kind {
    Int,     // 42 (ival)
    Float,   // 0.5, 1e-5 (fval)
    Inf,     // inf (positive infinity; -inf is Neg(Inf))
    Name,    // a loop index or a size symbol (name)
    Access,  // name[args...]: an element of a tensor
    Call,    // name(args...): a pointwise function or a cast
    Neg,     // -args[0]
    Binary,  // args[0] op args[1], op one of + - * / %
  };
  Kind kind = Kind::Int;
  SourceLoc loc;
  int64_t ival = 0;
  double fval = 0;
  std::string name;
  char op = 0;
  std::vector<Expr> args;
};

enum class Role { In, Out, New };
const char* role_name(Role r);  // "in", "out", "new"

struct Stmt {
  enum class Kind { Decl, Loop, Assign };
  Kind kind = Kind::Assign;
  SourceLoc loc;
  // Decl: `role name: dtype[extents];` (in/out only at the top level; new anywhere).
  Role role = Role::In;
  std::string name;
  SourceLoc name_loc;
  DType dtype = DType::F32;
  std::vector<Expr> extents;
  // Loop: `par|seq extent var { body }`.
  bool par = false;
  Expr extent;
  std::string var;  // (name_loc is the variable's location)
  std::vector<Stmt> body;
  // Assign: `lhs = rhs;` or `lhs += rhs;` (accumulate).
  Expr lhs;
  bool accumulate = false;
  Expr rhs;
};

struct TxProgram {
  std::vector<Stmt> items;
  // The `//` comment lines before the first item (the file's header), kept by the printer; a
  // blank line inside them is "\n". Comments anywhere else are listed in misplaced_comments:
  // `loom fmt` refuses to drop them.
  std::vector<std::string> header;
  std::vector<SourceLoc> misplaced_comments;
};

// Parses one .tx buffer; syntax errors are reported to `diag` (the parser resynchronizes at the next
// `;` or `}` so one typo yields one diagnostic).
TxProgram parse_tx(const SourceManager& sm, uint32_t file, DiagnosticEngine& diag);

// The canonical text of a program (two-space indentation, one item per line).
std::string print_tx(const TxProgram& p);
std::string print_expr(const Expr& e);

// Structural equality, ignoring source locations.
bool same(const Expr& a, const Expr& b);
bool same(const Stmt& a, const Stmt& b);
bool same(const TxProgram& a, const TxProgram& b);

// Pointwise functions and casts a value expression may call (name -> number of arguments; 0 when
// unknown). Casts are the dtype names bf16, f16, f32.
int function_arity(const std::string& name);
bool is_cast(const std::string& name);

}  // namespace loom::tx
