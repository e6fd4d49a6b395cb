// Tensors on the host, for the two CPU engines that prove sequential semantics: the reference
// interpreter (runs the source program as written) and the event-IR executor (runs the compiled IR
// in a random legal order). Both share this representation and the leaf-op implementations, so a
// mismatch between them can only come from the compiler's events and copies.
//
// A Buffer holds elements as doubles; every store rounds to the buffer's element type (bf16 and f16
// round to nearest even, f32 rounds to float, i32 truncates toward zero), so values behave as they
// would on the GPU for exactly representable inputs. Fresh buffers are poisoned with NaN: reading
// data that was never written shows up as NaN in the output.
// A View is a rank-r window onto a buffer: a chain of partition pieces (src/layout/partition.h)
// applied from the view's compact coordinates down to the buffer's coordinates.
// Test: tests/unit/host_tensor_test.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "layout/partition.h"
#include "ir/leaf_ops.h"
#include "loom/machine.h"

namespace loom::exec {

class View;

struct Buffer {
  DType dtype = DType::F32;
  std::vector<int64_t> extents;
  std::vector<double> data;  // row-major
  std::string name;          // for messages ("C1", "Acc")
  // A register conduit's buffer: the piece of the tensor it stands for (element c of this buffer
  // is element c of that view), so that mask_above finds coordinates in the program's tensor.
  std::shared_ptr<const View> holds;
};

// Rounds `v` to what an element of type `t` can hold.
double round_to(DType t, double v);

// A fresh buffer with every element NaN (poisoned).
std::shared_ptr<Buffer> make_buffer(DType t, std::vector<int64_t> extents, std::string name);

class View {
 public:
  View() = default;
  explicit View(std::shared_ptr<Buffer> b);  // the whole buffer

  // The piece of this view described by `maps` (one DimMap per dimension of this view; a DimMap
  // without modes fixes that dimension and removes it from the piece's rank).
  View piece(std::vector<DimMap> maps) const;

  int rank() const { return static_cast<int>(extents_.size()); }
  const std::vector<int64_t>& extents() const { return extents_; }
  int64_t size() const;  // number of elements
  DType dtype() const { return buf_->dtype; }
  const std::shared_ptr<Buffer>& buffer() const { return buf_; }

  // Flat buffer index of the element at compact coordinates `c` (rank() of them).
  int64_t flat(const std::vector<int64_t>& c) const;
  double load(const std::vector<int64_t>& c) const { return buf_->data[static_cast<size_t>(flat(c))]; }
  void store(const std::vector<int64_t>& c, double v) const;

  // Whether two views share any element (same buffer and overlapping element sets).
  bool overlaps(const View& other) const;

 private:
  std::shared_ptr<Buffer> buf_;
  std::vector<std::vector<DimMap>> chain_;  // outermost (closest to the buffer) first
  std::vector<int64_t> extents_;
};

// The partition operators on views (both engines cut tensors with these, so they agree exactly):
// piece `color` of blocks of `block` sizes (0 = the whole dimension), clipped at the edges;
View blocks_of(const View& v, const std::vector<int64_t>& block, const std::vector<int64_t>& color);
// slice `i` along dimension `dim` (the dimension is removed);
View slice_of(const View& v, int dim, int64_t i);
// piece `p` of the mma operand distribution of `role` for a tile held by `holder` (rank-2 tiles, or
// rank-1 row vectors with role acc). The caller has checked the tile is legal for the instruction.
View mma_of(const View& v, MmaRole role, ProcKind holder, int64_t p, bool transposed = false);

// Runs a built-in leaf op on views and scalars (`args[i]` is a view for tensor arguments, `scalars[i]`
// the value for scalar arguments). Throws std::runtime_error with a clear message when the shapes do
// not fit (a run-time shape error in the user's program, e.g. mma of 64x16 by 32x8).
struct LeafArg {
  bool is_tensor = true;
  View view;
  double scalar = 0;
};
// `broadcast_dim`: for a binary op with a rank-1 B and a rank-2 D, the dimension of D that B runs
// along (0: one value per row, 1: one value per column; ir::Op::broadcast_dim).
void run_leaf_op(const LeafOp& op, const std::vector<LeafArg>& args, int broadcast_dim = 0);

// Elementwise copy between views of equal shape (and equal element types).
void copy_view(const View& src, const View& dst);

}  // namespace loom::exec
