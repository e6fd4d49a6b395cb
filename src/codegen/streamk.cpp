// streamk (STREAM-K in cuda_gen.h; docs/codegen.md, "Stream-K"): the block's srange loop over K is
// shared between persistent blocks across tiles, so every SM gets the same number of iterations
// whatever the number of tiles (a wave that is not full, or fewer tiles than SMs, would leave SMs
// idle). The host (runtime/loom/streamk_plan.h, streamk_plan) picks `workers` blocks (at most one
// per SM) and sk_tiles, the last tiles in the kernel's tile order, whose iterations are shared.
// Block b first runs the other tiles, whole, one per turn (waves that all blocks start together, so
// they stay in step and share their operands in L2 as an unshared kernel's do), then iterations
// [b T / workers, (b + 1) T / workers) of the shared T = sk_tiles x sk_iters, cut at tile
// boundaries into turns (tile, [unit_lo, unit_hi)). A turn that does not start at iteration 0 (at
// most one per block: its first shared turn) stores its partial sums into the block's slot of a
// global workspace and sets the block's flag to the launch's epoch; the turn that starts at 0 (the tile's first block, which reaches the tile last)
// waits for the flags of the blocks after it that share the tile, adds their partial sums in
// iteration order (its own, then block b + 1's, ...: the same order on every run with the same
// number of blocks), and runs the rest of the tile. A block only waits for blocks with a higher
// index, whose first turn waits for nothing, so the handshake cannot deadlock. Refused, as for
// splitk (splitk.cpp, plan_split): anything in the loop besides its TMA loads and tensor-core mma
// into f32 accumulators cleared before it; DMA work or another loop after it; a trip count that
// depends on the tile.
#include "codegen/cuda_gen.h"

#include <algorithm>
#include <sstream>

namespace loom::codegen::detail {

void CudaGen::emit_stream_reduce(Stream& s, const Op& loop) {
  wgmma_drain(s, loop);
  const std::string k = var(loop.regions[0].args[0]);
  const std::string n = var(loop.operands[0]);
  const std::string wgs = std::to_string(compute_wgs_);
  const std::string wg_floats4 = std::to_string(split_wg_bytes() / 16);
  const std::string bar = std::to_string(sync_barrier0()) + " + consumer_wg";
  s.line("// streamk: a turn that did not start at iteration 0 hands its partial sums to the tile's first turn, which");
  s.line("// adds the later turns' sums in iteration order and runs the rest of the tile (streamk.cpp)");
  s.line("const bool sk_first = " + k + "_lo == 0;");
  s.line("{");
  s.indent += 2;
  s.line("const int tid = loom::rt::thread_in_warpgroup();");
  s.line("if (!sk_first) {  // this block's slot: register quadruple q of thread t at float4 q * 128 + t");
  s.indent += 2;
  s.line("const int64_t slot = static_cast<int64_t>(blockIdx.x) * " + wgs + " + consumer_wg;");
  s.line("float4* const part = sk_partials + slot * " + wg_floats4 + ";");
  int64_t q0 = 0;
  for (auto& [acc, regs] : split_accs_) {
    s.line("#pragma unroll");
    s.line("for (int q = 0; q < " + std::to_string(regs / 4) + "; ++q) loom::rt::streamk_store(&part[(" + std::to_string(q0) +
           " + q) * 128 + tid], make_float4(" + acc + "[4 * q], " + acc + "[4 * q + 1], " + acc + "[4 * q + 2], " + acc + "[4 * q + 3]));");
    q0 += regs / 4;
  }
  if (const int64_t release = stream_release_barrier0(); release >= 0) {
    // The stores drain while the warpgroup goes on to its next turn: warp 1 of the DMA warpgroup waits
    // for them at the barrier and releases the flag (stream_release_helper).
    s.line("loom::rt::named_barrier_arrive(" + std::to_string(release) +
           " + consumer_wg, 160);  // stored: the DMA warpgroup's warp 1 releases the flag once they are performed");
  } else {
    s.line("loom::rt::named_barrier_sync(" + bar + ", 128);  // the warpgroup's partial sums are stored");
    s.line("if (tid == 0) loom::rt::streamk_flag_release(&sk_flags[slot], sk_epoch);");
  }
  s.indent -= 2;
  s.line("} else if (" + k + "_hi < " + n + ") {  // a cut tile: the blocks after this one that ran the rest of it");
  s.indent += 2;
  s.line("const int64_t sk_tile_end = (tile - sk_base + 1) * sk_iters;  // in the shared iterations");
  s.line("for (int64_t p = static_cast<int64_t>(blockIdx.x) + 1; p < gridDim.x && p * sk_total / gridDim.x < sk_tile_end; ++p) {");
  s.indent += 2;
  s.line("if ((p + 1) * sk_total / gridDim.x == p * sk_total / gridDim.x) continue;  // an empty share: nothing handed over");
  s.line("const int64_t slot = p * " + wgs + " + consumer_wg;");
  s.line("if (tid == 0) loom::rt::streamk_flag_wait(&sk_flags[slot], sk_epoch);");
  s.line("loom::rt::named_barrier_sync(" + bar + ", 128);  // block p's partial sums are visible to the warpgroup");
  s.line("const float4* const part = sk_partials + slot * " + wg_floats4 + ";");
  // Loads in batches of up to 16 quadruples before they are added: the L2 latency is paid once a batch
  // (H200, 128 KB of partial sums a block: 2.9 -> 2.75 us from batches of 8; bandwidth-bound beyond).
  q0 = 0;
  for (auto& [acc, regs] : split_accs_) {
    int64_t Q = 16;
    while ((regs / 4) % Q) --Q;
    const std::string QS = std::to_string(Q);
    s.line("#pragma unroll");
    s.line("for (int q0 = 0; q0 < " + std::to_string(regs / 4) + "; q0 += " + QS + ") {");
    s.line("  float4 v[" + QS + "];");
    s.line("  #pragma unroll");
    s.line("  for (int j = 0; j < " + QS + "; ++j) v[j] = loom::rt::streamk_load(&part[(" + std::to_string(q0) + " + q0 + j) * 128 + tid]);");
    s.line("  #pragma unroll");
    s.line("  for (int j = 0; j < " + QS + "; ++j) {");
    s.line("    const int q = q0 + j;");
    s.line("    " + acc + "[4 * q] += v[j].x; " + acc + "[4 * q + 1] += v[j].y; " + acc + "[4 * q + 2] += v[j].z; " + acc +
           "[4 * q + 3] += v[j].w;");
    s.line("  }");
    s.line("}");
    q0 += regs / 4;
  }
  s.indent -= 2;
  s.line("}");
  s.indent -= 2;
  s.line("}");
  s.indent -= 2;
  s.line("}");
  s.line("if (sk_first) {  // the rest of the tile: its first turn only");
  s.indent += 2;
  split_owner_open_ = true;
}

// The block's share [sk_next, sk_end) of the sk_total shared iterations, the same in every role that
// walks or inspects the turns (stream_tile_loop_head, stream_release_helper); `advancing`: sk_next is
// the loop's cursor.
std::string CudaGen::stream_share_lines(const std::string& ind, bool advancing) const {
  return ind + "const int64_t sk_total = sk_tiles * sk_iters;\n" + ind + (advancing ? "" : "const ") +
         "int64_t sk_next = static_cast<int64_t>(blockIdx.x) * sk_total / gridDim.x;\n" + ind +
         "const int64_t sk_end = (static_cast<int64_t>(blockIdx.x) + 1) * sk_total / gridDim.x;\n";
}

// The head of a role's persistent loop of turns (assemble.cpp's tile_loop): defines tile, unit_lo
// and unit_hi for the body; `total` is the number of tiles.
void CudaGen::stream_tile_loop_head(std::ostream& o, const std::string& ind, const std::string& total) const {
  const std::string in = ind + "  ";
  o << ind << "// streamk (streamk.cpp): whole tiles in waves, then this block's equal share of the last sk_tiles tiles'\n"
    << ind << "// iterations (the waves first: the blocks start them together, in step, as an unshared kernel does)\n"
    << ind << "const int64_t sk_base = " << total << " - sk_tiles;  // the first shared tile\n"
    << stream_share_lines(ind, /*advancing=*/true)
    << ind << "int64_t dp_next = blockIdx.x;\n"
    << ind << "for (;;) {\n"
    << in << "int64_t tile, unit_lo, unit_hi;  // this turn: a tile and its iterations [unit_lo, unit_hi)\n"
    << in << "if (dp_next < sk_base) {\n"
    << in << "  tile = dp_next;\n"
    << in << "  dp_next += gridDim.x;\n"
    << in << "  unit_lo = 0;\n"
    << in << "  unit_hi = INT64_MAX;  // the whole loop\n"
    << in << "} else if (sk_next < sk_end) {\n"
    << in << "  tile = sk_base + sk_next / sk_iters;\n"
    << in << "  unit_lo = sk_next % sk_iters;\n"
    << in << "  unit_hi = loom_min(sk_iters, unit_lo + (sk_end - sk_next));\n"
    << in << "  sk_next += unit_hi - unit_lo;\n"
    << in << "} else {\n"
    << in << "  break;\n"
    << in << "}\n";
}

// The hand-over's release barriers: after the per-warpgroup and all-warpgroup syncs (sync.cpp; streamk
// takes no teams), one per compute warpgroup, where the DMA warpgroup's warp 1 is idle (TMA loads: one
// elected thread of warp 0 issues them) and the ids fit the 16 a block has.
int64_t CudaGen::stream_release_barrier0() const {
  const int64_t first = sync_barrier0() + compute_wgs_ + 1;
  if (!stream_ || !ws_ || async_copy_ || first + compute_wgs_ > 16) return -1;
  return first;
}

// Warp 1 of the DMA warpgroup in a streamk kernel: a block's first shared turn, when it starts inside
// a tile, stores its partial sums (emit_stream_reduce); each compute warpgroup arrives on its barrier
// after its stores and runs on, and this warp, waiting there, releases the warpgroup's flag once the
// stores are performed (the barrier orders them before its fence and release; the same order as the
// warpgroup's own sync and release, without the warpgroup waiting for its stores to drain). At most one
// turn of a block hands over: only its first shared turn can start inside a tile.
void CudaGen::stream_release_helper(std::ostream& o, const std::string& ind) const {
  const int64_t bar0 = stream_release_barrier0();
  if (bar0 < 0) return;
  const std::string in = ind + "  ";
  o << ind << "// streamk: warp 1 releases the flag of this block's partial sums once they are stored (streamk.cpp)\n"
    << ind << "if (loom::rt::warpgroup_index() == 0 && loom::rt::warp_in_warpgroup() == 1) {\n"
    << stream_share_lines(in, /*advancing=*/false)
    << in << "if (sk_next < sk_end && sk_next % sk_iters != 0) {  // the first shared turn starts inside a tile: it hands over\n"
    << in << "  for (int wg = 0; wg < " << compute_wgs_ << "; ++wg) {\n"
    << in << "    loom::rt::named_barrier_sync(" << bar0 << " + wg, 160);  // warpgroup wg's partial sums are stored\n"
    << in << "    if (loom::rt::lane_id() == 0) loom::rt::streamk_flag_release(&sk_flags[static_cast<int64_t>(blockIdx.x) * "
    << compute_wgs_ << " + wg], sk_epoch);\n"
    << in << "  }\n"
    << in << "}\n"
    << ind << "}\n";
}

// The launch of a streamk kernel: the host's share of the work (streamk_plan) from the loop's
// trip count in the first tile, the workspace of (device, stream), and the kernel's extra
// arguments.
std::string CudaGen::stream_launch(const std::string& kname, const std::vector<std::string>& args, std::set<ValueId>& have) {
  std::ostringstream o;
  const Op& L = *split_loop_;
  o << "  // streamk: the K loop's iterations per tile (the same in every tile), shared between at most one block per SM\n";
  for (const std::string& l : slice_lines(L.operands[0], have, L)) o << "  " << l << "\n";
  const int64_t partial = compute_wgs_ * split_wg_bytes();
  o << "  const int64_t sk_iters = " << var(L.operands[0]) << " > 0 ? " << var(L.operands[0]) << " : 0;\n"
    << "  const loom::host::StreamKPlan sk_plan = loom::host::streamk_plan(blocks, sk_iters, sms[device].load());\n"
    << "  const int64_t grid = sk_plan.workers;\n"
    << "  loom::host::StreamKWorkspace sk_ws;  // a block's partial sums (" << compute_wgs_ << " x " << split_wg_bytes()
    << " bytes) and flag per warpgroup\n"
    << "  if (sk_plan.sk_tiles > 0 && loom::host::streamk_workspace(device, stream, static_cast<size_t>(grid) * " << partial
    << ", static_cast<size_t>(grid) * " << compute_wgs_ << ", &sk_ws) != cudaSuccess) {\n"
    << "    (void)cudaGetLastError();\n"
    << "    return LOOM_ERR_LAUNCH;\n"
    << "  }\n"
    << "  " << kname << "<<<dim3(static_cast<unsigned>(grid)), dim3(kThreads), kSmemBytes, stream>>>(";
  for (const std::string& a : args) o << a << ", ";
  o << "sk_plan.sk_tiles, sk_iters, sk_ws.epoch, static_cast<float4*>(sk_ws.partials), sk_ws.flags);\n";
  return o.str();
}

// The cost estimate's end for a streamk kernel (estimate.cpp): `fixed` is a tile's cost besides
// the shared loop, `per_iter` one iteration of it, `trips` its trip count.
std::string CudaGen::stream_estimate(const std::string& fixed, const std::string& per_iter, const std::string& trips) const {
  const CostModel& cm = hopper_machine().cost;
  if (cm.workspace_bytes_per_cycle <= 0) cannot(split_loop_, "a cost estimate of streamk without a workspace rate");
  const int64_t partial = compute_wgs_ * split_wg_bytes();
  std::ostringstream o;
  o << "  // streamk: whole tiles in waves of `workers`, then each block's share of the shared tiles' iterations,\n"
    << "  // the turns it takes (at most two more than its share spans), its partial sums (" << partial << " bytes) written,\n"
    << "  // and those of the other blocks that share its tile read: at most one per share in a tile's iterations\n"
    << "  const int64_t sk_iters = " << trips << " > 0 ? " << trips << " : 0;\n"
    << "  const loom::host::StreamKPlan plan = loom::host::streamk_plan(blocks, sk_iters, sms);\n"
    << "  if (plan.workers <= 0) return 0.0;\n"
    << "  const double whole = " << fixed << " + static_cast<double>(sk_iters) * " << per_iter << ";\n"
    << "  const double dp = static_cast<double>(loom_cdiv(blocks - plan.sk_tiles, plan.workers)) * whole;\n"
    << "  if (plan.sk_tiles == 0) return dp;\n"
    << "  const int64_t share = loom_cdiv(plan.sk_tiles * sk_iters, plan.workers);\n"
    << "  const int64_t turns = share / loom_max(sk_iters, 1) + 2;\n"
    << "  const int64_t reads = loom_cdiv(sk_iters, loom_max(share, 1));\n"
    << "  return dp + static_cast<double>(share) * " << per_iter << " + static_cast<double>(turns) * " << fixed << " + "
    << "static_cast<double>(1 + reads) * (" << partial << ".0 / " << cm.workspace_bytes_per_cycle << ".0 + " << cm.handover_cycles
    << ".0);\n";
  return o.str();
}

}  // namespace loom::codegen::detail
