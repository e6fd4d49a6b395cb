// `loom run --cpu x.tx` (issue 13, section 3): the tensor expression interpreted directly
// (src/tx/interp.h) against the task programs it lowers to, run on loom's CPU executor for the
// event IR (src/exec/executor.h, what `loom run --cpu X.loom` runs), on the same inputs.
//
// METHOD. The lowered programs run in program order, as one chain: a tensor environment starts
// with the program's inputs (and zeros for its `out` and `new` tensors, as the interpreter starts
// them); each kernel's entry arguments are taken from it by name (the lowering keeps the user's
// names), a parameter the entry instance declares `col_major` being the tensor with its two inner
// dimensions swapped (a transposed operand: the same bytes read as the logical matrix); its written
// arguments go back into it (mlp: the first kernel's H is the second's input). The chain runs once
// with every kernel's default mapping and once more for each `when(fastest)` alternative of each
// kernel (the others on their defaults): the launcher may pick any of them, so each must agree. The
// executor runs each in a seeded random order on poisoned buffers, with its race check.
//
// TOLERANCE. Both sides accumulate in fp32 but in different orders (the interpreter sequentially,
// the program by K steps of tensor-core tiles) and round the result to its dtype once, so an element
// may land on the neighbouring value of the dtype. Kernels reading a rounded 16-bit intermediate
// (mlp's H) inherit such a one-unit flip of the intermediate, scaled by the next product, and the
// lowered gelu is the tanh form (the interpreter's is the erf form; they differ by less than 5e-4). An
// element e of an output X of type t matches when
//     |lowered_e - interpreted_e| <= 2 ulp_t(max(|lowered_e|, |interpreted_e|)) + ulp_t(max_e' |interpreted_e'|)
// (two units at the element, plus one unit at the output's largest magnitude for the intermediates),
// or within an absolute `tolerance` given by the user instead. A wrong lowering (a missing K step,
// bias, activation or batch, a transposed operand read the wrong way) misses by a sizable fraction of
// the output's magnitude; tests/unit/tx_cpu_compare_test.cpp checks that perturbed programs fail.
//
// Test: tests/unit/tx_cpu_compare_test.cpp; ctest cli.tx.run_cpu.*.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "loom/diagnostics.h"
#include "tx/check.h"
#include "tx/interp.h"

namespace loom::tx {

// One lowered kernel: its name, the statement it was recognized from (for diagnostics), and the
// `.loom` text of its task program (src/tx/lower.h).
struct LoweredProgram {
  std::string kernel;
  SourceLoc loc;
  std::string text;
};

struct CompareOptions {
  uint64_t seed = 1;         // the executor's order
  bool race_check = true;    // ExecOptions::detect_races
  double tolerance = -1;     // an absolute tolerance; < 0: the rule above
};

// The largest difference found in one output tensor over every mapping chain.
struct OutputComparison {
  std::string tensor;
  DType dtype = DType::F32;
  std::vector<int64_t> extents;
  double max_error = 0;            // max |lowered - interpreted|
  std::vector<int64_t> worst;      // where (the first such element)
  double interpreted = 0, lowered = 0;  // the values there
  double allowed = 0;              // the tolerance there
  // The element that exceeds its tolerance by the most (when one does): where, and both values.
  bool ok = true;
  std::vector<int64_t> bad;
  double bad_interpreted = 0, bad_lowered = 0, bad_allowed = 0;
  double bad_excess = 0;           // |lowered - interpreted| - allowed there
  std::string bad_chain;           // which mappings produced it ("mlp_Y: when(fastest) [mlp_Y.loom:140]")
  SourceLoc writer;                // the statement of the last kernel that writes the tensor
};

struct Comparison {
  std::vector<OutputComparison> outputs;  // one per `out` tensor, in declaration order
  int chains = 0;                         // mapping chains run
  std::vector<std::string> not_run;       // mappings whose when(...) is a condition on extents (not run)
  bool ok() const;
  std::string format() const;             // the report `loom run --cpu x.tx` prints
};

// Runs `programs` (in order, as one chain) on the CPU executor from `inputs` (the interpreter's
// inputs, by name) and compares every `out` tensor of `m` with `interpreted` (interpret_tx's
// result on the same inputs and `sizes`). A lowered program that fails on the executor (a data
// race, a deadlock, a limit) is a located error at its kernel's statement; an output that no
// program writes is a located error at the output's declaration; both throw CompileError. A
// program whose text does not check is a bug of the lowering (InternalError).
Comparison compare_lowered(const Model& m, const std::vector<LoweredProgram>& programs,
                           const std::map<std::string, int64_t>& sizes, const std::map<std::string, Array>& inputs,
                           const std::map<std::string, Array>& interpreted, const CompareOptions& opt);

}  // namespace loom::tx
