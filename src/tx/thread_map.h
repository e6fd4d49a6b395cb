// The thread-mapping pass (issue 13, section 4; docs/tensor-expressions.md, "Thread mapping"): turns
// each top-level `par` nest that is not part of a tensor-core kernel into a SIMT kernel (simt_ir.h)
// whose logical loops are mapped onto (block, warp, lane) by a quasi-affine permutation.
//
// The choice is an integer linear program over the permutation's parameters (src/tx/mapping_ilp.h,
// solved with CBC): which loop the lanes run along, which the warps, staged through a shared tile
// or not, and the tile's layout; its objective is the memory transactions per warp of every
// access (32-byte global sectors from the ISL lane deltas of src/tx/lane_stride.h, plus
// shared-memory wavefronts for a staged tile), summed over the accesses, ties to the earlier
// candidate. The enumeration of the same candidates stays as the cross-check and the fallback
// when the ILP's node budget runs out:
//   Map:  lanes along each loop of the nest (warps along another), and, for one assignment, every
//         staged pair (read lanes along one loop, write lanes along another, through a shared
//         tile) with each tile layout (plain, padded rows, xor swizzle);
//   Rows: lanes along the columns (a row per warp or per block, chosen at run time by the row
//         length) or along the rows (a row per thread).
// `--emit=mapping` prints the ILP (variables, constraints, objective, proven or budget), every
// candidate with its per-access costs (format_mapping), and the chosen permutation. What cannot be
// mapped is a located user error. Tests: tests/unit/tx_simt_test.cpp, tests/unit/tx_mapping_ilp_test.cpp.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "tx/mapping_ilp.h"
#include "tx/poly.h"
#include "tx/simt_ir.h"

namespace loom::tx {

struct MappingCandidate {
  std::string name;         // "lanes along j", "staged: read lanes along j, write lanes along i, padded tile"
  std::string permutation;  // the quasi-affine map (block, warp, lane, s) -> loop indices, as text
  struct Cost {
    std::string access;  // "A[i, j] (read)" or "tile (shared, write phase)"
    std::string why;     // "stride 1 (contiguous)"
    int transactions = 0;
  };
  std::vector<Cost> costs;
  int total = 0;
};

struct SimtMapping {
  SimtKernel kernel;
  std::vector<MappingCandidate> candidates;  // the enumeration (the ILP's cross-check)
  int enumerated = 0;                        // the enumeration's best: cheapest, then earliest
  MappingSpace space;                        // the ILP's input: lane options and cost coefficients
  MappingIlp ilp;                            // its solution
  int chosen = 0;                            // the ILP's proven optimum, else `enumerated`
};

// The SIMT kernels of `m`: one per top-level item holding an assignment outside `absorbed` (the
// assignments of recognized contraction kernels, `other_kernels` of them). `base` names them like
// the contraction kernels: `base` when the file has one kernel in all, `base_<last output
// written>` otherwise. Errors go to `diag` (nothing is returned for a group that failed).
std::vector<SimtMapping> map_threads(const Model& m, const PolyModel& poly, const std::set<int>& absorbed,
                                     const std::string& base, size_t other_kernels, DiagnosticEngine& diag);

// Sets `x.enumerated` (the cheapest candidate, the earliest of equally cheap ones) and `x.chosen`:
// the ILP's choice when `x.ilp` is proven optimal, `x.enumerated` when its budget ran out.
void choose_mapping(SimtMapping& x);

// `loom compile x.tx --emit=mapping`: per kernel, the ILP and its solution, the enumerated
// candidates with their costs, the choice with its permutation, and the SIMT IR.
std::string format_mapping(const Model& m, const std::vector<SimtMapping>& maps);

}  // namespace loom::tx
