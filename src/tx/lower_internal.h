// Shared by the lowering files (src/tx/lower_*.cpp), not a public interface: the plan that
// lower_plan.cpp derives from a ContractionKernel (the entry task's parameters, the terms, the
// names of every task, variant and tunable, free of collisions with the user's names) and the two
// emitters that turn it into `.loom` text: lower_tasks.cpp (task declarations and variants) and
// lower_mapping.cpp (the default mapping and the when(fastest) alternatives).
#pragma once

#include "loom/diagnostics.h"
#include "loom/machine.h"
#include "tx/contraction.h"
#include "tx/tile_model.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace loom::tx::detail {

// A user error about the kernel, located at its statement.
[[noreturn]] void lowering_error(const ContractionKernel& k, const std::string& message, const std::string& hint = "");

// Distinct names: `fresh("gemm")` is "gemm" unless that is taken, else "gemm_2", "gemm_3", ...
class Names {
 public:
  void reserve(const std::string& n) { used_.insert(n); }
  bool taken(const std::string& n) const { return used_.count(n) > 0; }
  std::string fresh(const std::string& base);

 private:
  std::set<std::string> used_;
};

enum class Role { Out, A, B, Bias, Residual };

// One tensor parameter of the entry task (and of the per-matrix task below the batch levels).
struct Param {
  std::string name;               // the user's name
  DType dtype = DType::BF16;
  Role role = Role::Out;
  bool batched = true;            // has the batch dimensions (all but a bias)
  bool col_major = false;         // a transposed operand: stored column-major (layout on the entry)
  std::vector<std::string> dims;  // the two matrix dimensions (the bias: one), logical order
  bool written = false;           // the output (w, or rw when it is also the residual)
  bool read = false;              // an input (the output too when it is also the residual)
};

// A pointwise prologue on one operand: its own task, launched on each K step's tile.
struct Prologue {
  std::string task;   // e.g. "relu_A"
  int param = -1;     // the operand (index into Plan::params)
  Role side = Role::A;
  Pointwise fn = Pointwise::Identity;
  std::string local;  // the tile it writes, e.g. "RA"
};

struct TermPlan {
  int a = -1, b = -1;            // indices into Plan::params
  int pro_a = -1, pro_b = -1;    // indices into Plan::prologues, -1 without one
  std::string k;                 // the reduction dimension
  std::string loop_var;          // the K loop's variable
  std::string label;             // launch label when the terms need different staging instances
  int staging = 0;               // which gemm staging instance (0 or 1)
};

struct Plan {
  const ContractionKernel* kernel = nullptr;
  const Machine* machine = nullptr;
  std::vector<Param> params;     // entry order: out, operands (first use), bias, residual
  std::vector<TermPlan> terms;
  std::vector<Prologue> prologues;
  int out = 0, bias = -1, residual = -1;  // residual may equal out (C += A * B)
  // Task names: the batch levels (outermost first; [0] is the entry when batched) and the matrix
  // task (the entry when not batched).
  std::vector<std::string> batch_tasks;
  std::string mat_task;
  std::string gemm, clear, epilogue;  // helper tasks
  // Tunables of the matrix task's variants (user-facing: they must not clash with user names).
  std::string U, V, W;
  int stagings = 1;              // gemm staging instances (2 when the terms' layouts differ)
  TileChoice tiles;
  Names names;                   // every name used so far (for the variants' local names)
  // Variant names by (task, role): "gemm/tile" -> "gemm_tile".
  std::map<std::string, std::string> variants;
  const std::string& variant(const std::string& task, const std::string& role) const;
};

Plan make_plan(const ContractionKernel& k, const Machine& m);

// Parameter lists of the matrix task (and batch tasks): "C, A, B, bias".
std::string param_names(const Plan& p);

std::string emit_tasks(const Plan& p);                         // task declarations + variants
std::string emit_mapping(const Plan& p, const TileConfig& c);  // every instance for tile `c`
// The instances of emit_mapping(p, alt) that differ from emit_mapping(p, p.tiles.main), in order.
std::string emit_specialization(const Plan& p, const TileConfig& alt);

const char* pointwise_leaf(Pointwise f);

// `text` as `//` comment lines of at most 100 columns (words kept whole; "\n" starts a new line).
std::string comment(const std::string& text);  // the leaf op that computes f: "relu", "gelu", ...

}  // namespace loom::tx::detail
