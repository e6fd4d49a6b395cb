// How far apart consecutive lanes of a warp access memory, computed with ISL (the thread-mapping
// model of docs/tensor-expressions.md, "Thread mapping"). For an access relation
// `S[.., x_d, ..] -> T[idx]` and a candidate lane loop d, the per-lane delta is the set of
// differences `idx(x + e_d) - idx(x)` over the statement's domain: `A^-1 . shift_d . A`'s deltas
// (isl_map_deltas). A single constant vector is a regular stride; anything else (a floor-division
// or mod by a constant, a non-injective access) is irregular and costed as the worst case.
//
// The cost of an access under a lane loop is the number of 32-byte memory sectors one warp's 32
// lanes touch (global memory; the unit the memory system moves), assuming the row pitch of every
// outer dimension is at least 32 bytes and the base is 32-byte aligned: a broadcast (delta 0)
// costs 1, a stride of c elements in the innermost dimension costs the distinct sectors of
// lane * c * elem_bytes, a stride in any outer dimension or an irregular one costs 32.
// Test: tests/unit/tx_simt_test.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tx/poly.h"

namespace loom::tx {

struct LaneDelta {
  bool regular = false;         // one constant delta vector over the whole domain
  std::vector<int64_t> delta;   // per tensor dimension (after the private-buffer loop dimensions)
};

// The delta of access `acc` when the loop `loop` (a Model::loops index enclosing the access's
// statement) advances by one. Loops that do not enclose the statement give a zero delta.
LaneDelta lane_delta(const Model& m, const TxAccess& acc, int loop);

// 32-byte sectors per warp for a global access with this delta and element size (see above).
int warp_sectors(const LaneDelta& d, int elem_bytes);

// "stride 1 (contiguous)", "broadcast", "stride in dimension 0 (one row per lane)", "irregular".
std::string describe_delta(const LaneDelta& d);

// Shared-memory wavefronts (bank-conflict degree) of one warp access: lane l touches 4-byte word
// `word(l)`; lanes on one bank and different words serialize. Exhaustive over the 32 lanes.
int smem_wavefronts(const std::vector<int64_t>& words);

}  // namespace loom::tx
