// The built-in leaf operations, as a table (name, arguments, what each argument is accessed for):
// what `call NAME(args)` means in the event IR (src/ir/ir.h) for a NAME that is not an extern leaf.
// The checker uses it for arity, privileges, ranks and element types; dependence analysis to order
// the calls; copy elimination, the executors and the back end for what each call reads and writes
// (the back end also for the code a call becomes, by its family).
// It is shared vocabulary (namespace loom, like DType): the front end, the middle end and the back
// end all read it, and none of them owns it.
// Semantics (docs/language.md): mma(C, A, B): C += A*B; fill(X, v); clear(X): X = 0; copy(D, S)
// (same element type); convert(D, S); exp/exp2/relu/sigmoid/tanh/silu/gelu/gelu_fast(D, S)
// elementwise (gelu and gelu_fast: the tanh form; gelu_fast lets the GPU take tanh.approx, docs/language.md);
// scale(D, S, s): D = S*s; axpy(D, X, a, Y): D = a*X + Y (one rounding on the GPU: fmaf);
// rowmax(D, S): D[i] = max(D[i], max_j S[i,j]); rowsum(D, S):
// D[i] += sum_j S[i,j]; add/sub/mul/div/max(D, A, B) elementwise, B of rank 1 broadcast along rows
// or along columns (named like D's second dimension: leaf_broadcast_dim in loom/ast.h);
// mask_above(D, d): D[i, j] = -inf where j - i > d, (i, j) the element's coordinates in the tensor
// D was cut from (its root: a parameter or a local), so that pieces of one tile agree on where the
// diagonal is (causal attention).
// Test: tests/errors/leaf_op_*.loom.
#pragma once

#include <string>
#include <vector>

namespace loom {

enum class OpArgKind { Tensor, Scalar };
enum class Access { Read, Write, ReadWrite };

struct OpArg {
  const char* name;
  OpArgKind kind;
  Access access;
};

enum class OpFamily { Mma, Fill, Copy, Convert, Unary, Scale, Axpy, RowReduce, Binary, Mask };

struct LeafOp {
  const char* name;
  OpFamily family;
  std::vector<OpArg> args;
};

// The element-wise families: D written element by element from its inputs (copy, convert, the unary
// ops, scale, axpy, the binary ops), as the back end lowers them to per-register loops.
inline bool is_elementwise(OpFamily f) {
  return f == OpFamily::Copy || f == OpFamily::Convert || f == OpFamily::Unary || f == OpFamily::Scale || f == OpFamily::Axpy ||
         f == OpFamily::Binary;
}

// nullptr when `name` is not a built-in leaf op.
const LeafOp* find_leaf_op(const std::string& name);
const std::vector<LeafOp>& leaf_ops();

}  // namespace loom
