// Static bounds: compile-time upper bounds of the index values and tensor extents of an event IR
// function. Resource allocation (resource_allocation.h) sizes every SHARED tensor with them; the
// code generator uses them the same way: shared tiles and register fragments get their full static
// size, and a partial edge tile is a clipped view of one.
//
// WHAT IS BOUNDED. Every index value gets an interval [lo, hi], either end possibly unknown:
//   const c                 [c, c]
//   arith add/sub/mul       interval arithmetic (an end is unknown when an operand end it needs is,
//                           or on overflow)
//   arith div/cdiv/mod      when the dividend is >= 0 and the divisor > 0 (C++ truncation, as the
//                           executor computes), e.g. cdiv [0, 256] by [64, 64] is [0, 4];
//                           mod by b > 0 is at most min(hi(b) - 1, hi(a))
//   arith min/max           min: hi = the smaller known hi (one known operand suffices); max: both
//   proc_index P            [0, proc_extents[P] - 1]
//   loop variable of [0,n)  [0, hi(n) - 1]
//   dim %t, d               [0, extent bound of %t in d] (below)
//   function parameter      unknown (a run-time size)
// and every tensor value an upper bound per dimension:
//   alloc [%e0, ...]        hi(%ei)
//   piece blocks[b...]      min(hi(b_d), the source's bound) — pieces are clipped at the parent's
//                           extent, so either bound is one; `*` takes the source's bound
//   piece slices(d)         the source's bounds without dimension d
//   piece mma(...)          the instruction tile of one sub-processor of the holder
//                           (layout/partition.h mma_piece), from the source's bounds: e.g. the
//                           WARPGROUP accumulator piece of a [128, 256] tile is [32, 256]
//   function parameter      unknown
// Bounds are conservative: a run-time value never exceeds its bound (given the IR's own invariants:
// extents are >= 0, a proc_index is below its processor count).
//
// Test: tests/unit/bounds_test.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace loom {

class StaticBounds {
 public:
  // Indexes `f` (its definitions and loops); the function must outlive this object and not change.
  explicit StaticBounds(const ir::Function& f);

  struct Interval {
    std::optional<int64_t> lo, hi;
  };

  // The interval of index value `v` (see WHAT IS BOUNDED); both ends unknown for a non-index value.
  Interval range(ir::ValueId v) const;
  // The static upper bound of index value `v`, or nullopt when there is none.
  std::optional<int64_t> upper_bound(ir::ValueId v) const { return range(v).hi; }

  // Upper bounds of the extents of tensor value `t` (an alloc, a piece or a parameter), one per
  // dimension (nullopt where unknown); empty for a non-tensor value.
  std::vector<std::optional<int64_t>> extent_bounds(ir::ValueId t) const;

  // Bytes of tensor `t` at its static size: the product of its extent bounds times the element
  // size; nullopt when an extent has no bound (or the product overflows).
  std::optional<int64_t> tensor_bytes_bound(ir::ValueId t) const;

  // Why tensor `t` has no static size, as a phrase for a diagnostic, following the first unbounded
  // extent to its source, e.g. "extent 1 (%K) depends on dimension 1 of %A, a run-time size" or
  // "extent 0 (%3) depends on %n, a run-time argument"; "" when tensor_bytes_bound(t) has a value.
  std::string why_unbounded(ir::ValueId t) const;

 private:
  struct Def {
    const ir::Op* op = nullptr;    // the defining op, or
    const ir::Op* loop = nullptr;  // the loop whose induction variable (or carried event) it is
  };
  std::string why_value(ir::ValueId v, int depth) const;
  std::string why_tensor_dim(ir::ValueId t, int d, int depth) const;

  const ir::Function& f_;
  std::vector<std::string> names_;
  std::unordered_map<ir::ValueId, Def> defs_;
  mutable std::unordered_map<ir::ValueId, Interval> ranges_;
  mutable std::unordered_map<ir::ValueId, std::vector<std::optional<int64_t>>> extents_;
};

}  // namespace loom
