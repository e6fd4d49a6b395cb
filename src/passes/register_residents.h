// Register residents: SHARED tensors that a tensor-core back end keeps in registers, so that they
// take no shared memory. Two kinds, both read off the IR's structure (no names):
//
//   * Row vectors. A SHARED rank-1 alloc that is only used by `dim`, by the lanes' pieces of an
//     `mma(..., acc, ...)` partition at WARP level (which only leaf calls, copies and `dim` use),
//     and by whole unnamed copies to and from other such vectors. Each lane keeps a replica of the
//     rows it holds in the accumulator layout (the online softmax's m, l, a of attention; row sums
//     of GEMM + reduction). Candidates whose copy partners are not candidates drop out, to a fixed
//     point.
//   * Forwarded A operands. A SHARED rank-2 16-bit tile written by exactly one unnamed copy, from a
//     REGISTER array of the same dtype into a lane's piece of an `mma(..., acc, ...)` partition of
//     the tile, and otherwise read only as the A operand (`mma` leaf, operand 1) through lane pieces
//     of an `mma(..., lhs, ...)` partition of the same warpgroup tile: wgmma takes A from registers,
//     and a packed accumulator fragment is an A fragment (HOPPER-FACTS F1), so the tile is never
//     stored (attention's probabilities P).
//
// Used by resource allocation (such a tensor gets no shared-memory bytes: its slot is marked
// `registers`, printed `@registers`) and by the CUDA back end (codegen/rows.cpp), which lowers them
// — one analysis, so the two never disagree. Test: tests/unit/resource_allocation_test.cpp.
#pragma once

#include <map>
#include <set>

#include "ir/ir.h"

namespace loom {

struct RegisterResidents {
  std::set<ir::ValueId> row_vectors;             // SHARED rank-1 allocs: per-lane row replicas
  std::map<ir::ValueId, ir::ValueId> forwarded;  // SHARED A tile alloc -> the REGISTER array it copies
  bool contains(ir::ValueId alloc) const { return row_vectors.count(alloc) || forwarded.count(alloc); }
};

// The register residents among the SHARED allocs of block `scope` and below (f.body by default).
RegisterResidents find_register_residents(const ir::Function& f, const ir::Block* scope = nullptr);

}  // namespace loom
