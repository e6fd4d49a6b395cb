// The thread-mapping choice as an integer linear program (docs/tensor-expressions.md, "The choice:
// an integer linear program"), solved with CBC through loom's ILP builder (src/sched/ilp.h).
//
// A SIMT kernel's quasi-affine permutation of (block, warp, lane, s) onto its logical loops is fixed
// by a few parameters: the loop its lanes run along, the loop its warps run along, whether a
// single assignment is staged through a 32 x 32 shared tile (read phase with lanes along one loop,
// write phase with lanes along another), and the tile's layout. Those parameters are the 0-1
// variables; the constraints make the assignment a permutation (each role taken by exactly one
// loop, no loop in two roles, staging only for one assignment); the objective is the kernel's
// memory cost per warp: the sum over its global accesses of the 32-byte sectors the warp's lanes
// touch (coefficients from the ISL lane deltas, src/tx/lane_stride.h) plus the bank-conflict
// wavefronts of a staged tile. The cost is scaled by the number of candidates and the candidate's
// index is added, so that among equally cheap permutations the one the enumeration lists first
// wins (the products that index needs, lane x write lane x layout, are linearized explicitly).
//
// The solver runs under a node budget (deterministic). A proven optimum is reported as proven; a
// budget hit says so and the caller falls back to the enumeration's best. The enumeration of
// thread_map.cpp is the cross-check: tests/unit/tx_mapping_ilp_test.cpp asserts that the ILP's
// optimum equals the enumeration's minimum on the examples and on random nests and cost tables.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "tx/simt_ir.h"

namespace loom::tx {

// What the ILP chooses among, with the cost coefficients. Candidate indices follow the
// enumeration's order: the direct candidates (lanes along option d, d = 0..n-1), then, when
// stageable, for each read lane option r, each write lane option w != r, each layout (plain,
// padded, xor), the staged candidate (r, w, layout).
struct MappingSpace {
  // The lane options: a Map's nest loops (outer first), or a Rows kernel's "the columns" and the
  // row loop. Names only label the variables.
  std::vector<std::string> lanes;
  bool warps = false;      // a Map of two or more loops: the warp role (innermost loop the lanes leave when direct)
  bool stageable = false;  // a Map of one assignment: the staged tile
  struct Access {
    std::string name;       // "A[i, j] (read)"
    bool write = false;     // staged: writes run in the write phase (lanes along the write lane option)
    std::vector<int> cost;  // sectors per warp with lanes along each lane option
  };
  std::vector<Access> accesses;
  std::array<int, 3> tile_cost{};  // store + load wavefronts per SmemLayout (Plain, Padded, Xor)
};

// The parameters of candidate `index` (the order above) and its cost, as the enumeration sums it.
struct MappingPoint {
  int lane = 0;        // lane option of the read phase (the whole kernel when direct)
  int write_lane = 0;  // lane option of the write phase (== lane when direct)
  int warp = -1;       // the warps' option (a Map of two or more loops): staged, the write phase's
                       // lanes; direct, the innermost option the lanes leave
  bool staged = false;
  SmemLayout layout = SmemLayout::Padded;
};
int candidate_count(const MappingSpace& s);
MappingPoint candidate_point(const MappingSpace& s, int index);
int candidate_cost(const MappingSpace& s, int index);

struct MappingIlp {
  bool solved = false;  // CBC returned a solution
  bool proven = false;  // proven optimal (otherwise: the node budget was hit; use the enumeration)
  std::string status;   // "proven optimal", "node budget (N) reached: ..."
  int chosen = -1;      // the candidate the solution encodes (when solved)
  MappingPoint point;   // the solution's parameters, read from the variables
  int cost = 0;         // its memory cost (the objective without the tie-break)
  double objective = 0; // the scaled objective: cost * candidate_count + chosen
  long nodes = 0;
  int num_vars = 0, num_rows = 0;
  // The variables, in column order, with their values ("lane[j] = 1").
  std::vector<std::pair<std::string, int>> values;
  // The formulation in a few lines (--emit=mapping).
  std::vector<std::string> formulation;
};

// The deterministic budget: CBC's branch-and-bound nodes. The models have tens of variables and
// are solved at the root; the budget only guards against a pathological model.
constexpr int kMappingIlpNodes = 2000;

MappingIlp solve_mapping_ilp(const MappingSpace& s, int max_nodes = kMappingIlpNodes);

}  // namespace loom::tx
