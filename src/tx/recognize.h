// Recognition of tensor-core contractions in a checked tensor-expression program (issue 13, the
// polyhedral document's fusion rules; docs/tensor-expressions.md, "Contractions"):
//   - a contraction is `X[b.., i, j] += A[.., i, k] * B[.., k, j]` under par loops b.., i, j and one
//     seq loop k (either operand's two inner indices may be swapped: a transposed operand; casts
//     around the operands are ignored); `X[b.., i, j] = 0` before it is absorbed;
//   - a `new` operand written by one pointwise statement `T[p, q] = f(Y[p, q])` and read only by
//     contractions is fused as a prologue (T disappears; the operand is Y with prologue f);
//   - a pointwise statement reading the result at its own indices is fused as the epilogue:
//     `act(result + bias[j] + residual[b.., i, j])` in any order of the sum, the activation last;
//     when the sum holds a second contraction's result, the two contractions become one kernel
//     with two terms (add_gemm); two contractions accumulating into one tensor are two terms too.
// Every statement that ends up in no kernel is reported with the reason. Test:
// tests/unit/tx_recognize_test.cpp.
#pragma once

#include <string>
#include <vector>

#include "tx/check.h"
#include "tx/contraction.h"

namespace loom::tx {

struct Recognition {
  std::vector<ContractionKernel> kernels;
  std::vector<std::vector<int>> statements;  // per kernel: the assignments it absorbed, in order
  struct Rejected {
    int assign = -1;
    std::string reason;  // "not a contraction: ..." or why a pointwise statement was not fused
  };
  std::vector<Rejected> rejected;  // in program order
};

// `name` names the kernels (the file's stem): `name` for a single kernel, `name_<out>` otherwise;
// `file` is the source file's name for the kernels' locations.
Recognition recognize_contractions(const Model& m, const std::string& name, const std::string& file);

// `loom compile x.tx --emit=contraction`.
std::string format_recognition(const Model& m, const Recognition& r);

}  // namespace loom::tx
