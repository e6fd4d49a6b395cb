// The tile-size cost model of the contraction lowering (issue 13, section 3): which block tile
// U x V, K step W, warpgroup count G and pipeline depth a recognized contraction
// (src/tx/contraction.h) runs with by default, and which smaller tiles are offered to the launcher's
// per-call cost model as `when(fastest)` mappings (docs/mapping.md, "Chosen by the cost model").
//
// The model only proposes tiles the CUDA back end runs (docs/codegen.md): U = 64 * G rows split
// between G consumer warpgroups, V a wgmma N, W a whole number of 128-byte swizzle rows. For each
// candidate it checks two budgets from the machine model (include/loom/machine.h):
//   - shared memory: `stages` K-step stages of the operand tiles (one ring for both terms of a
//     two-term kernel when their tiles are alike, docs/codegen.md "Rings shared by consecutive
//     loops"), the prologue tiles, the residual tile when it is staged, and the output's staging tile;
//   - registers of a consumer thread (what `setmaxnreg` leaves the G consumer warpgroups, minus a
//     reserve for addresses): the accumulator plus the epilogue's inputs held in registers;
// and estimates the cycles of a whole problem M x N x K as waves * per-tile cycles, with
// waves = ceil(tiles / SMS) and per-tile cycles = cdiv(K, W) steps of max(tensor-core time, operand
// bytes / L2 bandwidth per SM, (load latency + transfer) / (stages - 1)) plus the epilogue's stores. docs/tensor-expressions.md ("Lowering to
// task programs") states the numbers. Test: tests/unit/tx_lower_test.cpp (TxTileModel.*).
#pragma once

#include "loom/machine.h"
#include "tx/contraction.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loom::tx {

struct TileConfig {
  int u = 0, v = 0, w = 0;    // block tile U x V, K step W
  int g = 0;                  // consumer warpgroups (U = 64 * G)
  int stages = 0;             // pipeline depth of the K loop's shared ring(s)
  bool residual_shared = false;  // the residual tile is TMA-staged in shared memory
  int64_t smem_bytes = 0;     // what the budgets above add up to
  int tile_regs = 0;          // registers per consumer thread for tile data
  bool operator==(const TileConfig& o) const { return u == o.u && v == o.v && w == o.w && g == o.g && stages == o.stages; }
};

// The throughput figures the estimate uses (per SM and clock): the FMA and L2 rates come from the
// machine model's CostModel (include/loom/machine.h; Hopper: 2048 dense 16-bit tensor-core FMAs,
// 48 bytes of L2 -> shared fill), the load latency (about 800 cycles) and register reserve are the
// lowering's own.
struct Throughput {
  double fma_per_clock = 2048;
  double l2_bytes_per_clock = 48;
  double load_latency = 800;  // cycles from a TMA load's issue to its data in shared memory
  int reg_reserve = 40;  // registers a consumer thread keeps for addresses, indices, barriers
};
Throughput throughput_of(const Machine& m);

// Whether `c` fits the budgets for `k` on `m`; fills c.stages (the deepest ring up to 4 that fits),
// c.residual_shared, c.smem_bytes and c.tile_regs. On failure returns the reason (a sentence).
std::optional<std::string> fit_tile(const ContractionKernel& k, const Machine& m, TileConfig& c);

// Estimated cycles of one problem (extents of the output's rows, columns, and each term's K).
double estimate_cycles(const ContractionKernel& k, const Machine& m, const TileConfig& c, int64_t rows, int64_t cols,
                       int64_t depth);

// The result: the default tile (best for large problems) and the smaller tiles (one per block tile
// shape U x V, the one with the fewest estimated cycles on a small problem) that the generated
// program offers as `when(fastest)` candidates: the launcher weighs them per call against the default.
struct TileChoice {
  TileConfig main;
  std::vector<TileConfig> alternatives;
  std::string why;  // one line per decision, for comments in the generated mapping
};

// Chooses the tiles: k.u/k.v/k.w when set (each 0 means "choose"; no alternatives then), else
// the candidates (128 x 256, 128 x 128, 128 x 64 with K steps 64 and 128) ranked by the estimate.
// Throws CompileError (at k.loc) when no candidate fits or a user tile is not one the back end runs.
TileChoice choose_tiles(const ContractionKernel& k, const Machine& m);

}  // namespace loom::tx
