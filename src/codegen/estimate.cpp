// The launcher's cost model (docs/mapping.md, "Chosen by the cost model"). A program whose
// specializations say `when(fastest)` gets, in each mapping's namespace, estimate_cycles(): the
// time the machine model (loom::CostModel) predicts for one call at the call's extents. The
// dispatching launcher (cuda.cpp) runs the mapping with the smallest estimate.
//
//   cycles = ceil(tiles / SMS) * ( sum over the block's loops L of
//                                    trips(L) * max(FMA(L) / fma_per_cycle, TMA bytes(L) / fill_bytes_per_cycle,
//                                                   work(L))
//                                  + work(epilogue) + bytes written per tile / fill_bytes_per_cycle + tile_cycles )
//   work(X) = max(special-function ops / sfu_ops_per_cycle, FP32 ops / alu_ops_per_cycle)
//
// work(L) is the element-wise leaves inside loop L, work(epilogue) those after the tile's loops (the
// bias, activation and conversion the tensor cores wait for), each leaf's cost per element as the
// back end lowers it (elementwise.cpp, element_work). Under alternate(T) the epilogue runs under the
// next tile's main loop: the tile costs max(main loop, work(epilogue)), and the last tile's once.
//
// Each tensor's TMA bytes are weighted by CostModel::offsector_fill_percent when the call gives it a
// base address or row stride that is not a multiple of 32 bytes (checked per call: fill_<tensor>).
//
// tiles is the launcher's grid (blocks); the kernel is persistent, so each of min(tiles, SMS) blocks
// runs about tiles / SMS of them, and an uneven last wave costs a whole tile (wave quantization).
// FMA(L) and bytes(L) are one iteration's tensor-core work of all consumer warpgroups and its TMA
// loads, recorded while the kernel body was generated (emit_wgmma, emit_copy): the model reads the
// same event IR the kernel is made of. trips(L) is the loop's trip count in the first tile.
//
// kteams(T) (kteams.cpp): the teams share each tile's K loop; an iteration's work is one team's, so
// the loop's terms are unchanged, and the tile adds the hand-over of T - 1 teams' partial sums
// through shared memory (written and read at CostModel::smem_bytes_per_cycle).
//
// splitk(S) (splitk.cpp): a tile is a cluster of S blocks, so as many tiles run at once as clusters
// fit (slots below: the launcher's cluster_slots(), which asks cudaOccupancyMaxActiveClusters;
// floor(SMS / S) when it cannot say); the split loop's trips(L) becomes ceil(trips(L) / S) per block; a block writes
// the rows of the at most ceil(G / S) warpgroups it owns (G compute warpgroups); and the owner reads one partial sum per
// level of the split's tree (ceil(log2 S)) for each warpgroup it owns over distributed shared memory, at
// CostModel::dsmem_bytes_per_cycle, plus cluster_tile_cycles for the hand-over.
//
// multicast(S) (multicast.cpp): a multicast copy's bytes are the issuing block's share (1 / S of
// the tile), and an iteration takes at least the bytes landing in the block (the whole tile) over
// CostModel::intake_bytes_per_cycle; the blocks run in clusters of S (slots: cluster_slots() x S
// blocks at once) on groups of S tiles, a group cut by the edge still taking S blocks.
//
// streamk (streamk.cpp): the host's plan (runtime/loom/streamk_plan.h) gives `workers` blocks and
// the sk_tiles shared tiles; a block runs its whole tiles, its share ceil(sk_tiles x trips /
// workers) of the shared iterations, the fixed cost of each turn it takes, and the hand-overs of
// partial sums through the global workspace: its own written, and up to ceil(trips / share) other
// blocks' read (CostModel::workspace_bytes_per_cycle, handover_cycles each).
#include "codegen/cuda_gen.h"

#include <algorithm>
#include <functional>
#include <sstream>

namespace loom::codegen::detail {

namespace {

// The generated lines that set `slots`, how much runs at once for a cluster launch of S blocks: the
// launcher's cluster_slots() clusters, else SMs / S; counted in clusters, or with in_blocks in blocks.
std::string cluster_slots_code(int64_t S, bool in_blocks) {
  const std::string s = std::to_string(S), times = in_blocks ? " * " + s : "";
  return "  int device = 0;\n"
         "  int64_t slots = 0;\n"
         "  if (cudaGetDevice(&device) == cudaSuccess) slots = cluster_slots(device)" + times + ";\n"
         "  else (void)cudaGetLastError();\n"
         "  if (slots <= 0) slots = sms / " + s + " > 0 ? sms / " + s + times + " : " + (in_blocks ? s : "1") + ";\n";
}

}  // namespace

// The lines defining index value v from the parameters and what `have` holds (which they join):
// v's backward slice through index arithmetic and tensor views. Anything else on the way (a
// processor index, a loaded value) is not known on the host before the launch.
std::vector<std::string> CudaGen::slice_lines(ValueId v, std::set<ValueId>& have, const Op& for_loop, const std::string& what) {
  std::vector<std::string> out;
  std::function<void(ValueId)> need = [&](ValueId x) {
    if (have.count(x)) return;
    auto d = def_.find(x);
    if (d == def_.end() || d->second->kind == OpKind::ProcIndex || ir::is_async(d->second->kind) ||
        d->second->kind == OpKind::Alloc)
      cannot(&for_loop, what + ": the loop's trip count is not known before the tile starts");
    for (ValueId o : d->second->operands) need(o);
    for (auto& l : immediate_lines(*d->second)) out.push_back(l);
    have.insert(x);
  };
  need(v);
  return out;
}

// Cycles of the element-wise work recorded for the ops whose innermost loop is `loop` (nullptr: the
// tile's ops outside every loop), one tile's: the busier of the special-function units and the ALUs.
double CudaGen::work_cycles(const Op* loop) const {
  const CostModel& cm = hopper_machine().cost;
  if (cm.sfu_ops_per_cycle <= 0 || cm.alu_ops_per_cycle <= 0) return 0;
  int64_t sfu = 0, alu = 0;
  for (auto& [op, w] : work_of_)
    if (enclosing_loop(op) == loop) sfu += w.sfu, alu += w.alu;
  return std::max(static_cast<double>(sfu) / static_cast<double>(cm.sfu_ops_per_cycle),
                  static_cast<double>(alu) / static_cast<double>(cm.alu_ops_per_cycle));
}

// The body's first lines of a host function of the call's arguments (estimate_cycles, load_bytes):
// the arguments it does not read marked unused, and the grid's trip counts (`blocks`). Returns the
// values those lines define, for slice_lines.
std::set<ValueId> CudaGen::host_function_head(std::ostream& o) {
  o << "  (void)stream;\n";
  for (ValueId p : f_.params)
    if (f_.info(p).type != ir::Type::Tensor) o << "  (void)" << var(p) << ";\n";
  std::set<ValueId> have(f_.params.begin(), f_.params.end());
  for (const std::string& l : grid_lines(have)) o << "  " << l << "\n";
  return have;
}

std::string CudaGen::estimate_function() {
  const CostModel& cm = hopper_machine().cost;
  std::ostringstream o;
  o << "// The cost model's cycles for one call at these extents on `sms` SMs (estimate.cpp; machine model:\n"
    << "// " << cm.mma_fma_per_cycle << " tensor-core FMA and " << cm.fill_bytes_per_cycle << " bytes of TMA fill per SM and cycle, "
    << cm.tile_cycles << " cycles per tile).\n"
    << "double estimate_cycles(" << launch_params() << ", int64_t sms) {\n";
  std::set<ValueId> have = host_function_head(o);
  o << "  if (blocks <= 0 || sms <= 0) return 0.0;\n";
  // Tensors the TMA loads whose rows may start off a 32-byte sector: their bytes cost
  // offsector_fill_percent of the fill rate's time (CostModel).
  std::set<ValueId> loaded;
  for (auto& [op, root] : bytes_root_) loaded.insert(root);
  for (ValueId p : loaded) {
    const int rank = f_.info(p).rank;
    const int64_t eb = dtype_bytes(f_.info(p).dtype);
    const int contiguous = physical_order(p)[0];
    std::string off = "reinterpret_cast<uintptr_t>(" + pname(p) + ".data) % 32 != 0";
    for (int d = 0; d < rank; ++d)
      if (d != contiguous) off += " || (" + pname(p) + ".stride[" + std::to_string(d) + "] * " + std::to_string(eb) + ") % 32 != 0";
    o << "  // " << pname(p) << "'s TMA rows off 32-byte sectors: " << cm.offsector_fill_percent << "% of the fill time\n"
      << "  const double fill_" << pname(p) << " = " << off << " ? " << cm.offsector_fill_percent / 100.0 << " : 1.0;\n";
  }
  // The first tile's loop trip counts: the index computations they depend on, at block index 0.
  const ir::Block& tile = grid_.back()->regions[0];
  // alternate(T): the fixed costs of a tile (tile_cycles, its stores) run under the next tile's main
  // loop, which another team runs; only the last tile's are exposed.
  const bool teams = teams_ > 1 && !k_split_;  // (kteams(T)'s teams share every tile: below)
  o << "  double tile = " << (teams ? 0 : cm.tile_cycles) << ".0;\n";
  if (teams) o << "  double fixed = " << cm.tile_cycles << ".0;  // alternate(" << teams_ << "): under the next tile's main loop\n";
  for (const Op& L : tile.ops) {
    if (L.kind != OpKind::For) continue;
    int64_t fma = 0, bytes = 0, landed = 0;
    std::map<ValueId, int64_t> by_root;
    for (auto& [op, n] : fma_of_)
      if (enclosing_loop(op) == &L) fma += n;
    for (auto& [op, n] : bytes_of_)
      if (enclosing_loop(op) == &L) {
        bytes += n, by_root[bytes_root_.at(op)] += n;
        const auto mc = landed_of_.find(op);
        landed += mc == landed_of_.end() ? n : mc->second;
      }
    const double work = work_cycles(&L);
    if (!fma && !bytes) continue;
    for (const std::string& l : slice_lines(L.operands[0], have, L)) o << "  " << l << "\n";
    // max(tensor-core cycles, fill cycles, element-wise cycles), the fill weighted by each tensor's
    // sector alignment
    std::string fill;
    for (auto& [root, n] : by_root) fill += (fill.empty() ? "" : " + ") + std::to_string(n) + ".0 * fill_" + pname(root);
    std::ostringstream mma_cycles;
    mma_cycles << std::max(static_cast<double>(fma) / static_cast<double>(cm.mma_fma_per_cycle), work);
    std::string per_iter = fill.empty() ? mma_cycles.str()
                                        : "fmax(" + mma_cycles.str() + ", (" + fill + ") / " +
                                              std::to_string(cm.fill_bytes_per_cycle) + ".0)";
    // multicast: the whole tile lands in every block of the cluster (CostModel::intake_bytes_per_cycle)
    if (landed > bytes && cm.intake_bytes_per_cycle > 0)
      per_iter = "fmax(" + per_iter + ", " + std::to_string(landed) + ".0 / " + std::to_string(cm.intake_bytes_per_cycle) + ".0)";
    o << "  // " << (L.origin.empty() ? std::string("loop") : L.origin) << "  [" << source_ << ":" << L.loc.line << "]: " << fma << " FMA and " << bytes << " TMA bytes per iteration";
    if (landed > bytes) o << " (" << landed << " landing in the block: multicast)";
    if (work > 0) o << ", " << work << " cycles of element-wise work";
    o << "\n";
    if (&L == split_loop_ && stream_)
      o << "  // streamk: shared between the blocks (below)\n"
        << "  const double sk_iter = " << per_iter << ";\n"
        << "  const int64_t sk_trips = " << var(L.operands[0]) << ";\n";
    else if (&L == split_loop_)
      o << "  // splitk(" << split_ << "): a block runs at most ceil(trips / " << split_ << ") of them\n"
        << "  tile += static_cast<double>(loom_cdiv(" << var(L.operands[0]) << ", " << split_ << ")) * " << per_iter << ";\n";
    else
      o << "  tile += static_cast<double>(" << var(L.operands[0]) << ") * " << per_iter << ";\n";
  }
  // The tile's element-wise work outside its loops (the epilogue's bias, activation and conversion):
  // the tensor cores wait for it, unless the next tile's main loop, another team's, runs under it.
  // Under splitk(S) a block runs the epilogue of the at most ceil(G / S) warpgroups' rows it owns.
  const int64_t owners = cluster_split() ? (compute_wgs_ + split_ - 1) / split_ : compute_wgs_;
  if (const double epi = work_cycles(nullptr) * static_cast<double>(owners) / static_cast<double>(compute_wgs_); epi > 0) {
    if (teams)
      o << "  tile = fmax(tile, " << epi << ");  // alternate(" << teams_ << "): the epilogue's element-wise work runs under the next tile's main loop\n"
        << "  fixed += " << epi << ";\n";
    else
      o << "  tile += " << epi << ";  // the epilogue's element-wise work (max of special-function and ALU cycles)\n";
  }
  // What the call writes, spread over its tiles.
  std::string written;
  for (size_t i = 0; i < f_.params.size(); ++i) {
    const ValueId p = f_.params[i];
    if (f_.info(p).type != ir::Type::Tensor || entry_.params.at(i).privilege == ir::ParamPrivilege::Read) continue;
    std::string n = "static_cast<double>(" + std::to_string(dtype_bytes(f_.info(p).dtype)) + ")";
    for (int d = 0; d < f_.info(p).rank; ++d) n += " * static_cast<double>(" + pname(p) + ".shape[" + std::to_string(d) + "])";
    written += (written.empty() ? "" : " + ") + n;
  }
  if (!written.empty())
    o << "  " << (teams ? "fixed" : "tile") << " += (" << written << ") / static_cast<double>(blocks) / " << cm.fill_bytes_per_cycle << ".0"
      << (cluster_split() ? " * " + std::to_string(owners) + ".0 / " + std::to_string(compute_wgs_) + ".0" : "") << ";\n";
  if (k_split_ && cm.smem_bytes_per_cycle > 0)
    o << "  // " << kteams_what() << ": the other teams write their partial sums to shared memory, team 0 reads them\n"
      << "  tile += " << 2 * kteam_buffers_bytes() << ".0 / " << cm.smem_bytes_per_cycle << ".0;\n";
  if (stream_) {
    o << stream_estimate("tile", "sk_iter", "sk_trips") << "}\n\n";
    return o.str();
  }
  if (split_loop_) {
    if (cm.dsmem_bytes_per_cycle <= 0) cannot(split_loop_, "a cost estimate of splitk without a distributed shared memory rate");
    o << "  // splitk(" << split_ << "): the owner of a warpgroup's rows reads " << split_levels() << " partial sum(s) of "
      << split_wg_bytes() << " bytes (a tree of " << split_levels() << " level(s)), for the " << owners
      << " warpgroup(s) a block owns at most\n"
      << "  tile += " << split_levels() * owners * split_wg_bytes() << ".0 / " << cm.dsmem_bytes_per_cycle << ".0 + "
      << cm.cluster_tile_cycles << ".0;  // + the hand-over between the cluster's blocks\n"
      << "  // tiles (clusters) at once: what the launch will run (cluster_slots), else SMs / " << split_ << "\n"
      << cluster_slots_code(split_, false) << "  return static_cast<double>((blocks + slots - 1) / slots) * tile;\n"
      << "}\n\n";
    return o.str();
  }
  if (multicast_ > 1) {
    const std::string S = std::to_string(multicast_);
    o << "  tile += " << cm.multicast_tile_cycles << ".0;  // multicast: the cluster's blocks wait for each other (CostModel)\n";
    o << "  // " << mc_what() << ": the shared loads' bytes above are this block's share; the blocks run in clusters of " << S
      << "\n  // on groups of " << S << " tiles (a group past the edge still takes " << S << " blocks), as many clusters at once as\n"
      << "  // the launch runs (cluster_slots), else SMs / " << S << "\n"
      << "  const int64_t mc_blocks = " << mc_clusters_expr() << " * " << S << ";\n"
      << cluster_slots_code(multicast_, true) << "  return static_cast<double>((mc_blocks + slots - 1) / slots) * tile;\n"
      << "}\n\n";
    return o.str();
  }
  if (teams) {
    o << "  tile += " << cm.alternate_tile_cycles << ".0;  // alternate: the teams' hand-over on the tensor cores (CostModel)\n"
      << "  return static_cast<double>((blocks + sms - 1) / sms) * tile + fixed;\n"
      << "}\n\n";
    return o.str();
  }
  o << "  return static_cast<double>((blocks + sms - 1) / sms) * tile;\n"
    << "}\n\n";
  return o.str();
}

// The bytes one call loads by TMA — what its blocks read from the L2 —, for the dispatcher's
// tie-break: of mappings with equal estimates it runs the one that loads the fewest (cuda.cpp). Each
// tile's loops at its first tile's trip counts, an iteration's bytes as recorded for the estimate
// (emit_copy): a block's share of a multicast copy, so a cluster's shared panels count once; times
// the tiles, under multicast every block of the clusters (a group cut by the edge still takes S x T).
// The estimate does not see these bytes where the tensor cores set the pace (a 128 x 256 tile on
// clusters of 2, of 4 x 1 or of 2 x 2 costs the same cycles), but the L2 serves them all at once:
// on an H100 the clusters that share more ran up to 15% faster on single-wave long-K calls
// (bench/results/2026-12-06-h100-s47.md).
std::string CudaGen::load_bytes_function() {
  std::ostringstream o;
  o << "// The bytes one call loads by TMA at these extents (estimate.cpp, load_bytes_function): the tie-break\n"
    << "// between equal estimates.\n"
    << "double load_bytes(" << launch_params() << ") {\n";
  std::set<ValueId> have = host_function_head(o);
  o << "  if (blocks <= 0) return 0.0;\n"
    << "  double tile = 0.0;\n";
  for (const Op& L : grid_.back()->regions[0].ops) {
    if (L.kind != OpKind::For) continue;
    int64_t bytes = 0;
    for (auto& [op, n] : bytes_of_)
      if (enclosing_loop(op) == &L) bytes += n;
    if (!bytes) continue;
    for (const std::string& l : slice_lines(L.operands[0], have, L)) o << "  " << l << "\n";
    o << "  tile += " << bytes << ".0 * static_cast<double>(" << var(L.operands[0]) << ");  // " << (L.origin.empty() ? std::string("loop") : L.origin)
      << "  [" << source_ << ":" << L.loc.line << "]\n";
  }
  if (multicast_ > 1)
    o << "  return tile * static_cast<double>(" << mc_clusters_expr() << " * " << multicast_ << ");  // " << mc_what() << "\n";
  else
    o << "  return tile * static_cast<double>(blocks);\n";
  o << "}\n\n";
  return o.str();
}

}  // namespace loom::codegen::detail
