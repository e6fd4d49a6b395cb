// The tile-size cost model (src/tx/tile_model.h; docs/tensor-expressions.md, "Lowering to task
// programs").
#include "tx/tile_model.h"

#include "tx/lower_internal.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace loom::tx {

namespace {

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Two terms share one shared-memory ring when their operand tiles are alike (type and order); the
// middle end then reuses the first loop's ring for the second (docs/codegen.md).
bool terms_alike(const TxTerm& a, const TxTerm& b) {
  return a.a.dtype == b.a.dtype && a.a.transposed == b.a.transposed && a.b.dtype == b.b.dtype &&
         a.b.transposed == b.b.transposed;
}

int64_t term_stage_bytes(const TxTerm& t, const TileConfig& c) {
  return int64_t(c.u) * c.w * dtype_bytes(t.a.dtype) + int64_t(c.w) * c.v * dtype_bytes(t.b.dtype);
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
  return t;
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
  c.residual_shared = false;
  if (k.residual && dtype_bytes(k.residual->dtype) == 2 && k.residual->name != k.out.name &&
      2 * stage + fixed + int64_t(c.u) * c.v * 2 <= m.limits.smem_per_block) {
    c.residual_shared = true;
    fixed += int64_t(c.u) * c.v * 2;
  }
  c.stages = 0;
  for (int s = 4; s >= 2 && !c.stages; --s)
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
  const int64_t waves = cdiv(tiles, std::max(1, m.limits.sm_count));
  // Per K step: the tensor cores or the operand loads, whichever is slower, plus a fixed cost of
  // the step's barriers and issue (favours deeper steps when the two are equal).
  double per_tile = 0;
  for (const TxTerm& t : k.terms) {
    const double compute = double(c.u) * c.v * c.w / tp.fma_per_clock;
    const double loads = double(term_stage_bytes(t, c)) / tp.l2_bytes_per_clock;
    // With S stages, S - 1 loads are in flight while a step computes: a shallow ring waits.
    const double latency = (tp.load_latency + loads) / std::max(1, c.stages - 1);
    per_tile += double(cdiv(depth, c.w)) * (std::max({compute, loads, latency}) + 64.0);
  }
  // The epilogue: the output tile stored, the residual tile read.
  double epi_bytes = double(c.u) * c.v * dtype_bytes(k.out.dtype);
  if (k.residual) epi_bytes += double(c.u) * c.v * dtype_bytes(k.residual->dtype);
  per_tile += epi_bytes / tp.l2_bytes_per_clock;
  return double(waves) * per_tile;
}

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
    if (c.v % 64 || (mma && !mma->legal_n(c.v)))
      detail::lowering_error(k, "a block tile of " + std::to_string(c.v) + " columns is not one the back end runs",
                             "use a multiple of 64 up to 256 (a wgmma N; 128-byte swizzled rows of B)");
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
              ": given by the user";
    return out;
  }
  // The candidates, larger tiles first (ties go to the first).
  std::vector<std::string> refused;
  for (int v : {256, 128, 64})
    for (int w : {128, 64}) {
      TileConfig c{128, v, w, 2};
      if (auto no = fit_tile(k, m, c)) {
        refused.push_back(std::to_string(c.u) + " x " + std::to_string(v) + " x " + std::to_string(w) + ": " + *no);
        continue;
      }
      candidates.push_back(c);
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
  out.why = why.str();
  return out;
}

}  // namespace loom::tx
