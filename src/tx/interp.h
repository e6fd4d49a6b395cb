// The reference semantics of a tensor-expression program: a direct sequential interpreter on the
// CPU (`loom run --cpu x.tx`). Arithmetic is fp32; inputs are rounded to their declared dtype when
// they are bound; `new` buffers start at zero and round every stored value to their dtype; `out`
// tensors start at zero, are held in fp32 while the program runs (they are the kernel's
// accumulators) and are rounded to their dtype once at the end. Loops run in order (a `par` loop's
// iterations are independent — the polyhedral check proved it — so any order gives the same
// result). gelu is the erf form. Test: tests/unit/tx_interp_test.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tx/check.h"

namespace loom::tx {

struct Array {
  DType dtype = DType::F32;
  std::vector<int64_t> extents;
  std::vector<float> data;  // row-major
};

// The extents of tensor `t` under `sizes`. Throws CompileError when a size is missing or not positive.
std::vector<int64_t> tensor_extents(const Model& m, int t, const std::map<std::string, int64_t>& sizes);

// Runs the program: one array per `in` tensor (by name) in, one per `out` tensor out. Throws
// CompileError (a user error) for a missing size or input, or an input of the wrong shape.
std::map<std::string, Array> interpret_tx(const Model& m, const std::map<std::string, int64_t>& sizes,
                                          const std::map<std::string, Array>& inputs);

// Inputs drawn uniformly from [-1, 1) by a seeded generator, rounded to each input's dtype.
std::map<std::string, Array> random_inputs(const Model& m, const std::map<std::string, int64_t>& sizes, uint64_t seed);

// fp32 versions of the pointwise functions (shared with the contraction checks in tests).
float apply_function(const std::string& name, float x, float y = 0);

}  // namespace loom::tx
