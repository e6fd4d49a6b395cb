// A CPU evaluator of the SIMT kernel IR (simt_ir.h) over its (block, thread) space: the proof, in
// tests, that a thread mapping changes no result. Blocks run in a random order, and inside each
// phase of a block (the staged tile's read and write phases; each statement of a row kernel) the
// threads run in a random order too. A row reduction runs as the generated code runs it: each
// thread's partial over its columns (in vectors when `vector_path`), the xor-shuffle butterfly in
// each warp, then the warps' values in warp order. Outputs start poisoned and every element's
// writes are counted. The register row cache and the once-per-row invariants of the IR read and
// compute the same values in the same order, so they need no separate simulation. Test: tests/unit/tx_simt_test.cpp (against src/tx/interp.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "tx/interp.h"
#include "tx/simt_ir.h"

namespace loom::tx {

struct SimtRun {
  std::map<std::string, Array> outputs;  // rounded to their dtypes, like interpret_tx's
  int64_t unwritten = 0;                 // output elements no thread wrote (left NaN)
  int64_t rewritten = 0;                 // output element writes beyond the first
};

// `row_threads`: for a row kernel, the threads per row (1, 32 or k.block_threads); 0 picks what the
// launcher picks for these sizes. `vector_path`: the 16-byte vector instance (only when the kernel
// has one; the launcher's alignment checks are not simulated).
SimtRun evaluate_simt(const Model& m, const SimtKernel& k, const std::map<std::string, int64_t>& sizes,
                      const std::map<std::string, Array>& inputs, uint64_t seed, int row_threads = 0, bool vector_path = false);

}  // namespace loom::tx
