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
// bytes / L2 bandwidth per SM, (load latency + transfer) / (stages - 1)) plus the epilogue's stores.
//
// Split-K (docs/mapping.md, "Split-K"): when the K loop may be split (split_k_refusal below), a tile
// may also run on a cluster of S blocks, each over a contiguous share of the K steps, the partial
// sums added (a tree in a fixed order) over distributed shared memory by the block that owns the rows, which
// then runs the epilogue on the full sum. Such a candidate's budget adds the partial-sum buffers
// (U x V floats), and its estimate has floor(SMS / S) tiles at once, cdiv(cdiv(K, W), S) K steps per
// block, the exchange and a fixed cost per split tile (the machine model's CostModel, as the
// launcher's estimate). docs/tensor-expressions.md ("Lowering to task programs") states the
// numbers. Test: tests/unit/tx_lower_test.cpp (TxTileModel.*, TxSplitK.*).
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
  int split = 1;              // splitk(S): blocks of a cluster sharing each tile's K loop (1: no split)
  bool operator==(const TileConfig& o) const {
    return u == o.u && v == o.v && w == o.w && g == o.g && stages == o.stages && split == o.split;
  }
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
  // Split-K (CostModel): peers' shared memory read per SM and clock, and the fixed cost of a split
  // tile; 0 on a machine without clusters (no split candidates).
  double dsmem_bytes_per_clock = 0;
  double cluster_tile_cycles = 0;
};
Throughput throughput_of(const Machine& m);

// Whether `c` fits the budgets for `k` on `m`; fills c.stages (the deepest ring up to 4 that fits),
// c.residual_shared, c.smem_bytes and c.tile_regs. On failure returns the reason (a sentence).
// A split candidate (c.split > 1) also holds its partial-sum buffers (U x V floats) next to the
// output's staging tile, and reads its residual from GLOBAL (a TMA load after the split loop would
// be DMA work, which the peers of a split tile do not run).
std::optional<std::string> fit_tile(const ContractionKernel& k, const Machine& m, TileConfig& c);

// Why the kernel's K loop cannot be split between the blocks of a cluster (a sentence), or nullopt
// when it can: one term (one K loop, which is what splitk(S) splits), no operand prologue (the split
// loop may hold only TMA loads and tensor-core products), a machine with clusters. The epilogue
// never forbids it: bias, residual and activation run once per tile, on the full sum, in the block
// that owns the rows (src/codegen/splitk.cpp).
std::optional<std::string> split_k_refusal(const ContractionKernel& k, const Machine& m);

// Estimated cycles of one problem (extents of the output's rows, columns, and each term's K).
double estimate_cycles(const ContractionKernel& k, const Machine& m, const TileConfig& c, int64_t rows, int64_t cols,
                       int64_t depth);

// The result: the default tile (best for large problems) and the smaller tiles (one per block tile
// shape U x V, the one with the fewest estimated cycles on a small problem) that the generated
// program offers as `when(fastest)` candidates: the launcher weighs them per call against the default.
struct TileChoice {
  TileConfig main;
  std::vector<TileConfig> alternatives;  // smaller tiles, then the split-K candidates
  std::string why;  // one line per decision ("alternative..." once per alternative, in order)
};

// Chooses the tiles: k.u/k.v/k.w when set (each 0 means "choose"; no alternatives then), else
// the candidates (128 x 256, 128 x 128, 128 x 64 with K steps 64 and 128) ranked by the estimate.
// Split-K candidates (S = 2, 4 on the alternatives' block tiles) are offered when the K loop may be
// split, each one only if it has the fewest estimated cycles of all candidates on at least one
// small, long-K probe problem (kSplitProbeK deep; why says which).
// Throws CompileError (at k.loc) when no candidate fits or a user tile is not one the back end runs.
TileChoice choose_tiles(const ContractionKernel& k, const Machine& m);

// The K extent of the split-K probe problems.
constexpr int64_t kSplitProbeK = 8192;

}  // namespace loom::tx
