// The async-copy variant's producer: a global -> shared copy that TMA would make (dma.cpp), made
// instead by every thread of the producer warpgroup(s) with runtime/loom/async_copy.cuh's
// async_copy_tile — cp.async of the widest chunk the tensor's address and row stride allow (16, 8 or
// 4 bytes), or 16-bit loads and stores — into the same swizzled tile, with the same zero fill past
// the tensor's edge, completing on the same mbarrier (one arrival per producer thread). The
// launcher runs this variant when a tensor's base or row stride is not a multiple of 16 bytes
// (launcher.cpp); docs/codegen.md, "The async-copy variant".
#include "codegen/cuda_gen.h"

namespace loom::codegen::detail {

void CudaGen::emit_async_copy(Stream& s, const Op& op, const View& src, const std::string& tile_ptr, int64_t outer,
                              int64_t inner, int outer_dim, int inner_dim, int swizzle, const std::string& bar,
                              const std::string& slot) {
  const std::string P = pname(src.root);
  const std::string T = cpp_type(src.dtype);
  const int rank = f_.info(src.root).rank;
  // The tile's first element, and how much of the box lies inside the tensor: rows along the outer
  // dimension, elements along the contiguous one; a box outside the tensor in any other dimension
  // (a batch index past the extent) reads as zeros entirely, as TMA's does.
  std::string first = "reinterpret_cast<const " + T + "*>(" + P + ".data)";
  std::string inside;  // the box's other dimensions inside the tensor ("" when it has none)
  for (int d = 0; d < rank; ++d) {
    const std::string o = "(" + src.off[static_cast<size_t>(d)] + ")", D = std::to_string(d);
    first += " + " + o + " * " + P + ".stride[" + D + "]";
    if (d != outer_dim && d != inner_dim) inside += (inside.empty() ? "" : " && ") + o + " < " + P + ".shape[" + D + "]";
  }
  const std::string od = std::to_string(outer_dim), id = std::to_string(inner_dim);
  const int64_t threads = 128 * dma_wgs_;
  s.line("{  // " + names_[static_cast<size_t>(op.operands[0])] + " -> " + names_[static_cast<size_t>(op.operands[1])] +
         ": every producer thread copies its chunks, then arrives when they have landed");
  const std::string rows_in = P + ".shape[" + od + "] - (" + src.off[static_cast<size_t>(outer_dim)] + ")";
  s.line("  const int64_t rows_in = " + (inside.empty() ? rows_in : inside + " ? " + rows_in + " : 0") + ";");
  s.line("  const int64_t cols_in = " + P + ".shape[" + id + "] - (" + src.off[static_cast<size_t>(inner_dim)] + ");");
  s.line("  const " + T + "* const first = rows_in > 0 && cols_in > 0 ? " + first + " : reinterpret_cast<const " + T + "*>(" + P +
         ".data);");
  s.line("  const int chunk = loom::rt::async_copy_tile<" + T + ", " + swizzle_enum(swizzle) + ", " + std::to_string(outer) + ", " +
         std::to_string(inner) + ", " + std::to_string(threads) + ">(" + tile_ptr + ", first, " + P + ".stride[" + od +
         "], rows_in, cols_in, static_cast<int>(threadIdx.x));");
  s.line("  loom::rt::async_copy_arrive(&" + bar + "[" + slot + "], chunk);");
  s.line("}");
}

}  // namespace loom::codegen::detail
