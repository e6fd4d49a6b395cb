// The tile-size cost model (src/tx/tile_model.h; docs/tensor-expressions.md, "Lowering to task
// programs").
#include "tx/tile_model.h"

#include "ir/ir.h"
#include "tx/lower_internal.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace loom::tx {

namespace {

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Bytes a split candidate keeps free for the cluster's mbarriers and the back end's 1024-byte
// alignment of the shared-memory base.
constexpr int64_t kSplitReserve = 2048;

// Two terms share one shared-memory ring when their operand tiles are alike (type and order); the
// middle end then reuses the first loop's ring for the second (docs/codegen.md).
bool terms_alike(const TxTerm& a, const TxTerm& b) {
  return a.a.dtype == b.a.dtype && a.a.transposed == b.a.transposed && a.b.dtype == b.b.dtype &&
         a.b.transposed == b.b.transposed;
}

// A B tile stored N-contiguous takes whole 128-byte swizzle slices per row (ir::padded_row: a
// 224-column tile takes 256); stored K-contiguous (transposed) its rows are the K step's.
int64_t term_stage_bytes(const TxTerm& t, const TileConfig& c) {
  ir::TileLayout swizzled;
  swizzled.swizzle = 128;
  const int64_t eb = dtype_bytes(t.b.dtype);
  const int64_t b_row = t.b.transposed ? c.v : ir::padded_row(swizzled, c.v, eb);
  return int64_t(c.u) * c.w * dtype_bytes(t.a.dtype) + int64_t(c.w) * b_row * eb;
}

int64_t stage_bytes(const ContractionKernel& k, const TileConfig& c) {
  int64_t bytes = 0;
  for (size_t t = 0; t < k.terms.size(); ++t)
    if (t == 0 || !terms_alike(k.terms[0], k.terms[t])) bytes += term_stage_bytes(k.terms[t], c);
  return bytes;
}

// Registers a consumer thread has for tile data: what setmaxnreg can give the G consumer
// warpgroups next to one producer warpgroup at its minimum, less the reserve.
int consumer_register_budget(const Machine& m, int g, const Throughput& tp) {
  const Limits& l = m.limits;
  int producer = l.setmaxnreg_min > 0 ? std::max(l.setmaxnreg_min, 40) : 0;
  int64_t per = (l.regs_per_sm - 128 * int64_t(producer)) / (128 * int64_t(g));
  int regs = int(std::min<int64_t>(per, l.regs_per_thread));
  if (l.setmaxnreg_max > 0) regs = std::min(regs, l.setmaxnreg_max);
  if (l.setmaxnreg_step > 0) regs -= regs % l.setmaxnreg_step;
  return regs - tp.reg_reserve;
}

}  // namespace

Throughput throughput_of(const Machine& m) {
  Throughput t;  // the machine model's cost figures (loom::CostModel), which the launcher's estimate uses too
  if (m.cost.mma_fma_per_cycle) t.fma_per_clock = static_cast<double>(m.cost.mma_fma_per_cycle);
  if (m.cost.fill_bytes_per_cycle) t.l2_bytes_per_clock = static_cast<double>(m.cost.fill_bytes_per_cycle);
  t.dsmem_bytes_per_clock = static_cast<double>(m.cost.dsmem_bytes_per_cycle);
  t.cluster_tile_cycles = static_cast<double>(m.cost.cluster_tile_cycles);
  return t;
}

std::optional<std::string> split_k_refusal(const ContractionKernel& k, const Machine& m) {
  if (m.limits.cluster_blocks < 2 || m.cost.dsmem_bytes_per_cycle <= 0)
    return m.target + " has no thread-block clusters to split a tile's K loop over";
  if (k.terms.size() > 1)
    return "the kernel has two K loops (" + k.terms[0].k + " and " + k.terms[1].k +
           ") into one accumulator; splitk(S) splits one loop per block, with no loop after it";
  // An operand prologue (relu_gemm's relu on each K step's tile of A) splits with the loop: each
  // block applies it to its own share of the K steps (src/codegen/splitk.cpp).
  return std::nullopt;
}

std::optional<std::string> fit_tile(const ContractionKernel& k, const Machine& m, TileConfig& c) {
  const Throughput tp = throughput_of(m);
  std::ostringstream why;
  // Registers: V/2 accumulators per thread (64 rows x V columns over 128 threads), one register per
  // epilogue input element (the bias: V/4, the residual: V/2), the prologue's A fragments of a K
  // step packed two to a register (W/4).
  int regs = c.v / 2;
  if (k.bias) regs += c.v / 4;
  if (k.residual) regs += c.v / 2;
  for (const TxTerm& t : k.terms)
    if (t.a.prologue != Pointwise::Identity) regs += c.w / 4;
  c.tile_regs = regs;
  const int budget = consumer_register_budget(m, c.g, tp);
  if (regs > budget) {
    why << "a consumer thread would hold " << regs << " registers of tile data (accumulator and epilogue inputs), "
        << budget << " fit";
    return why.str();
  }
  // Shared memory: the ring(s), the prologue tiles, the residual and output staging tiles.
  const int64_t stage = stage_bytes(k, c);
  int64_t fixed = 0;
  for (const TxTerm& t : k.terms) {
    if (t.a.prologue != Pointwise::Identity) fixed += int64_t(c.u) * c.w * dtype_bytes(t.a.dtype);
    if (t.b.prologue != Pointwise::Identity) fixed += int64_t(c.w) * c.v * dtype_bytes(t.b.dtype);
  }
  if (dtype_bytes(k.out.dtype) == 2) fixed += int64_t(c.u) * c.v * 2;  // staged TMA stores
  if (c.split > 1) {
    // The partial sums (one 64 x V fp32 buffer per warpgroup) and the cluster's barriers, with the
    // back end's alignment slack (docs/codegen.md, "Split-K").
    fixed += int64_t(c.u) * c.v * 4 + kSplitReserve;
  }
  c.residual_shared = false;
  if (c.split == 1 && k.residual && dtype_bytes(k.residual->dtype) == 2 && k.residual->name != k.out.name &&
      2 * stage + fixed + int64_t(c.u) * c.v * 2 <= m.limits.smem_per_block) {
    c.residual_shared = true;
    fixed += int64_t(c.u) * c.v * 2;
  }
  // Up to 4 stages; a tile on one consumer warpgroup (64 rows) up to 8: its K steps are short, and
  // a single wave of such tiles is fed faster the more loads are in flight
  // (bench/results/2026-11-28-h200-gemm-rings.md, 2026-11-29-h200-gemm-small.md).
  const int max_stages = c.g == 1 ? 8 : 4;
  c.stages = 0;
  for (int s = max_stages; s >= 2 && !c.stages; --s)
    if (s * stage + fixed <= m.limits.smem_per_block) c.stages = s;
  if (!c.stages) {
    why << "two stages of " << stage / 1024 << " KB and " << fixed / 1024 << " KB of epilogue and prologue tiles need "
        << (2 * stage + fixed) / 1024 << " KB of shared memory, " << m.limits.smem_per_block / 1024 << " KB fit";
    return why.str();
  }
  c.smem_bytes = c.stages * stage + fixed;
  return std::nullopt;
}

double estimate_cycles(const ContractionKernel& k, const Machine& m, const TileConfig& c, int64_t rows, int64_t cols,
                       int64_t depth) {
  const Throughput tp = throughput_of(m);
  const int64_t tiles = cdiv(rows, c.u) * cdiv(cols, c.v);  // one matrix of a batch
  // A split tile is a cluster of S blocks: floor(SMS / S) tiles at once.
  const int64_t waves = cdiv(tiles, std::max(1, m.limits.sm_count / std::max(1, c.split)));
  // Per K step: the tensor cores or the operand loads, whichever is slower, plus a fixed cost of
  // the step's barriers and issue (favours deeper steps when the two are equal).
  double per_tile = 0;
  for (const TxTerm& t : k.terms) {
    const double compute = double(c.u) * c.v * c.w / tp.fma_per_clock;
    const double loads = double(term_stage_bytes(t, c)) / tp.l2_bytes_per_clock;
    // With S stages, S - 1 loads are in flight while a step computes: a shallow ring waits.
    const double latency = (tp.load_latency + loads) / std::max(1, c.stages - 1);
    per_tile += double(cdiv(cdiv(depth, c.w), c.split)) * (std::max({compute, loads, latency}) + 64.0);
  }
  if (c.split > 1) {
    // The owner of a warpgroup's rows reads one partial sum (64 x V floats) per level of the split's
    // tree, ceil(log2 S) (src/codegen/splitk.cpp), for each warpgroup it owns, and every split tile
    // pays the cluster's hand-over.
    const double owned = double(cdiv(c.g, c.split));
    int levels = 0;
    while ((1 << levels) < c.split) ++levels;
    per_tile += double(levels) * owned * 64.0 * c.v * 4 / std::max(1.0, tp.dsmem_bytes_per_clock) +
                tp.cluster_tile_cycles;
  }
  // The epilogue: the output tile stored, the residual tile read.
  double epi_bytes = double(c.u) * c.v * dtype_bytes(k.out.dtype);
  if (k.residual) epi_bytes += double(c.u) * c.v * dtype_bytes(k.residual->dtype);
  per_tile += epi_bytes / tp.l2_bytes_per_clock;
  return double(waves) * per_tile;
}

namespace {

std::string shape(int64_t r, int64_t c, int64_t d) {
  return std::to_string(r) + " x " + std::to_string(c) + " x " + std::to_string(d);
}

// Split-K candidates: for each block tile of the default and the alternatives and S = 2, 4, the K
// step (and the deepest pipeline that fits) with the fewest estimated cycles on a problem of one such
// tile; kept when it has the fewest estimated cycles of every candidate, split or not, on at least
// one probe problem: an output of 128 to 2048 rows and 64 to 1024 columns (powers of two), K =
// kSplitProbeK. These are where a tile's K loop is long and the output's tiles leave most SMs idle.
void add_split_candidates(const ContractionKernel& k, const Machine& m, TileChoice& out, std::ostringstream& why) {
  if (auto no = split_k_refusal(k, m)) {
    why << "\nno split-K candidates: " << *no;
    return;
  }
  std::vector<TileConfig> unsplit = {out.main};
  unsplit.insert(unsplit.end(), out.alternatives.begin(), out.alternatives.end());
  auto cost = [&](const TileConfig& c, int64_t r, int64_t cl) { return estimate_cycles(k, m, c, r, cl, kSplitProbeK); };
  std::vector<TileConfig> splits;
  for (const TileConfig& a : unsplit)
    for (int s : {2, 4}) {
      if (s > m.limits.cluster_blocks) continue;
      std::optional<TileConfig> best;
      for (int w : {64, 128}) {
        TileConfig c{a.u, a.v, w, a.g};
        c.split = s;
        if (fit_tile(k, m, c)) continue;
        if (!best || cost(c, c.u, c.v) < cost(*best, best->u, best->v)) best = c;
      }
      if (best) splits.push_back(*best);
    }
  std::vector<TileConfig> all = unsplit;
  all.insert(all.end(), splits.begin(), splits.end());
  std::ostringstream lines;
  for (const TileConfig& c : splits) {
    std::string wins;
    for (int64_t r = 128; r <= 2048 && wins.empty(); r *= 2)
      for (int64_t cl = 64; cl <= 1024 && wins.empty(); cl *= 2) {
        bool best = true;
        for (const TileConfig& o : all)
          if (!(o == c) && cost(o, r, cl) <= cost(c, r, cl)) best = false;
        if (best) wins = shape(r, cl, kSplitProbeK);
      }
    if (wins.empty()) continue;
    out.alternatives.push_back(c);
    lines << "\nalternative: split-K, splitk(" << c.split << ") on tile " << c.u << " x " << c.v << ", K step " << c.w
        << ", " << c.stages << " stages (" << c.smem_bytes / 1024 << " KB shared with the partial sums): each tile"
        << " runs on a cluster of " << c.split << " blocks, each over a share of the K steps; offered because it"
        << " has the fewest estimated cycles of all candidates at " << wins
        << ", weighed per call by the launcher's cost model (when(fastest))";
  }
  if (lines.str().empty()) {
    why << "\nno split-K candidates: none has the fewest estimated cycles on a probe problem (up to 2048 x 1024 x "
        << kSplitProbeK << ")";
    return;
  }
  // What splitting changes, and why the epilogue does not stand in its way.
  std::string epi;
  if (k.bias) epi += " + " + k.bias->name;
  if (k.residual) epi += " + " + k.residual->name;
  if (k.activation != Pointwise::Identity) epi = std::string(pointwise_name(k.activation)) + "(sum" + epi + ")";
  else if (!epi.empty()) epi = "sum" + epi;
  why << "\nsplit-K: the K loop over " << k.terms[0].k << " is a plain sum, so a cluster's blocks may each sum a share "
      << "of it; the block that owns a warpgroup's rows adds the partial sums in a fixed order (fp32, the same order "
      << "on every run)"
      << (epi.empty() ? "" : " and then computes the epilogue, " + epi + ", once on the full sum")
      << (k.residual ? " (split mappings read " + k.residual->name + " from GLOBAL: the peers run no DMA after the loop)"
                     : "");
  why << lines.str();
}

}  // namespace

TileChoice choose_tiles(const ContractionKernel& k, const Machine& m) {
  TileChoice out;
  std::ostringstream why;
  const bool user = k.u || k.v || k.w;
  std::vector<TileConfig> candidates;
  if (user) {
    TileConfig c;
    c.u = k.u ? k.u : 128;
    c.v = k.v ? k.v : 128;
    c.w = k.w ? k.w : 64;
    if (c.u % 64 || c.u < 64 || c.u > 256)
      detail::lowering_error(k, "a block tile of " + std::to_string(c.u) + " rows is not one the back end runs",
                             "use 64, 128, 192 or 256 rows: 64 per consumer warpgroup");
    const MmaInstr* mma = m.find_mma("wgmma");
    if (c.v % 32 || c.v < 32 || (mma && !mma->legal_n(c.v)))
      detail::lowering_error(k, "a block tile of " + std::to_string(c.v) + " columns is not one the back end runs",
                             "use a multiple of 32 up to 256 (a wgmma N; B's rows take whole 64-column swizzle slices)");
    if (c.w % 64 || c.w < 64)
      detail::lowering_error(k, "a K step of " + std::to_string(c.w) + " is not one the back end runs",
                             "use a multiple of 64 (128-byte swizzled rows of 16-bit operand tiles)");
    c.g = c.u / 64;
    if (auto no = fit_tile(k, m, c))
      detail::lowering_error(k, "the tile " + std::to_string(c.u) + " x " + std::to_string(c.v) + " x " +
                                    std::to_string(c.w) + " does not fit: " + *no,
                             "choose a smaller tile, or leave the tile sizes to the cost model");
    out.main = c;
    out.why = "tile " + std::to_string(c.u) + " x " + std::to_string(c.v) + ", K step " + std::to_string(c.w) +
              ": given by the user (no alternatives, no split-K candidates)";
    return out;
  }
  // The candidates, larger tiles first (ties go to the first): 128 rows on two consumer warpgroups,
  // and 64 rows on one for the smallest problems, where a block's serial path is the call's time and
  // more, smaller tiles each load less (bench/results/2026-11-29-h200-gemm-small.md).
  std::vector<std::string> refused;
  for (int u : {128, 64})
    for (int v : {256, 128, 64}) {
      if (u == 64 && v == 256) continue;  // as wide as the default: not one of the measured small tiles
      for (int w : {128, 64}) {
        TileConfig c{u, v, w, u / 64};
        if (auto no = fit_tile(k, m, c)) {
          refused.push_back(std::to_string(c.u) + " x " + std::to_string(v) + " x " + std::to_string(w) + ": " + *no);
          continue;
        }
        candidates.push_back(c);
      }
    }
  if (candidates.empty()) {
    std::string all;
    for (const std::string& r : refused) all += "; " + r;
    detail::lowering_error(k, "no block tile fits this kernel" + all,
                           "fewer fused epilogue inputs or a smaller output type reduce the registers and shared memory");
  }
  // The default: best on a large problem (8192 rows, columns and K), where waves are many.
  const int64_t big = 8192;
  auto cost = [&](const TileConfig& c, int64_t r, int64_t cl, int64_t d) { return estimate_cycles(k, m, c, r, cl, d); };
  out.main = *std::min_element(candidates.begin(), candidates.end(), [&](const TileConfig& a, const TileConfig& b) {
    return cost(a, big, big, big) < cost(b, big, big, big) * 0.999;
  });
  why << "default tile " << out.main.u << " x " << out.main.v << ", K step " << out.main.w << ", " << out.main.stages
      << " stages (" << out.main.smem_bytes / 1024 << " KB shared, " << out.main.tile_regs
      << " tile registers per thread): the fewest estimated cycles at " << big << "^3";
  // The alternatives: for each smaller block tile U x V, the K step and depth with the fewest
  // estimated cycles on a small problem (one wave of the default's tiles at most, K = 4096). Which of
  // them runs is the launcher's choice per call (when(fastest)), from the event IR and the machine model.
  const int sms = std::max(1, m.limits.sm_count);
  const int64_t small_rows = int64_t(out.main.u) * std::max(1, sms / 4), small_cols = out.main.v;
  for (const TileConfig& c : candidates) {
    if (int64_t(c.u) * c.v >= int64_t(out.main.u) * out.main.v) continue;
    auto same = std::find_if(out.alternatives.begin(), out.alternatives.end(),
                             [&](const TileConfig& a) { return a.u == c.u && a.v == c.v; });
    if (same == out.alternatives.end()) out.alternatives.push_back(c);
    else if (cost(c, small_rows, small_cols, 4096) < cost(*same, small_rows, small_cols, 4096)) *same = c;
  }
  for (const TileConfig& c : out.alternatives)
    why << "\nalternative: tile " << c.u << " x " << c.v << ", K step " << c.w << ", " << c.stages
        << " stages, weighed per call by the launcher's cost model (when(fastest))";
  add_split_candidates(k, m, out, why);
  out.why = why.str();
  return out;
}

}  // namespace loom::tx
