// Teams that share every tile's K loop (the mapping's `kteams(T)` on a warp-specialized loop;
// docs/mapping.md, "Teams sharing the K loop"): the compute role's T x G warpgroups form T teams of
// the G warpgroups a tile takes, and every team works on every tile of the block. Team t runs the
// iterations of the shared loop whose ring positions are t modulo T, into an accumulator of its own
// (cleared before the loop, as the program says), so that T chains of wgmmas on one tile are in
// flight where one chain would wait for its own previous step; then the T partial sums are added
// through shared memory and team 0 runs the rest of the tile (the epilogue). cuBLAS's kernels for
// single-wave, long-K shapes split a 64-row tile's K steps between two consumer warpgroups the same
// way (bench/results/2026-12-05-h100-intake.md).
//
//   * The ring. The DMA role is unchanged: it walks every iteration of every tile in order and fills
//     one ring. A team takes the positions t, t + T, ... of the block's running count (base + k), so
//     the pipeline depth must be a multiple of T (check_mapping; refused here too): then every slot
//     serves one team only, each team waits on a slot's barrier one round after the last time it
//     did, and a slot's parity never aliases. A slot is released by the warps of the team that read
//     it (count G x 4, events.cpp, as for alternate(T)). A team waits for its own wgmmas at the end
//     of each of its iterations (wgmma_wait<0>) and releases the iteration's slot at once
//     (events.cpp, yield_signal): the other teams' wgmmas keep the tensor cores busy meanwhile, and
//     a team holds one slot, not two (waiting with one group in flight, as one team does, kept
//     2T slots out of the producer's reach; on the H100 1.06x-1.13x slower on three of six
//     candidates, within 2% on the others: bench/results/2026-12-05-h100-s45.md).
//   * The sum. The class of a partial sum is the residue of its tile-local iterations modulo T
//     (team t holds class (t - base) mod T of this tile). Team 0 adds the classes in the order
//     0, 1, ..., T - 1, from 0.0f: (((0 + P0) + P1) + P2) + P3, the same whatever team held which
//     class, so results do not depend on which tiles a block ran before (the summation order
//     differs from the unshared loop's, as splitk(S)'s does; docs/mapping.md). The CPU executor
//     runs the loop in order: its proof is the unshared program's.
//   * Hand-over. Teams 1..T-1 write their sums into a buffer of their own in shared memory (16-byte
//     stores, register quadruple q of thread tid at float4 q * 128 + tid), and every thread arrives
//     on the mbarrier `ready` of its warpgroup's rank w in the team (count (T - 1) x 128: release
//     semantics cover the arriving thread's own stores); team 0's warpgroup w waits on it (acquire),
//     adds, and its threads arrive on `free` (count 128); a team waits on `free` before it writes its
//     buffer again. Both complete once per tile: parity tile_iter & 1 (free: the previous tile's).
//     A team is at most one tile ahead of team 0 (it waits for `free` of the tile before), so the
//     parities never alias. (Named barriers, bar.arrive then bar.sync, order the same accesses, but
//     compute-sanitizer's racecheck does not see bar.arrive as a release and reports every element.)
//   * Deadlock freedom. The producer refills the slot of position p once p - P is released; p - P
//     is the same team's (P a multiple of T), which released it when its wgmmas were done, before
//     it waits for p. (Holding one wgmma group in flight instead would release p - P only once the
//     team had issued p - P + T, which deadlocks unless P >= 2T.)
//   * Not with (located errors): anything in the shared loop besides its TMA loads, tensor-core mma
//     into f32 accumulators cleared to 0 before it and an operand prologue (splitk.cpp,
//     summed_accumulators); another loop, DMA work or a signal to the DMA role after it; a buffer
//     loaded once per tile (events.cpp: its release would count every team); a shared-memory tensor
//     the compute role writes before or in the loop (every team would write it); pingpong, splitk,
//     streamk, alternate; more than 4 compute warpgroups in all.
#include "codegen/cuda_gen.h"

namespace loom::codegen::detail {

void CudaGen::plan_kteams() {
  std::function<void(const ir::Block&, bool)> find = [&](const ir::Block& b, bool top) {
    for (const Op& op : b.ops) {
      if (op.kind == OpKind::For && op.k_teams > 1) {
        if (!top) cannot(&op, "kteams on a loop inside another loop of the block");
        if (kteam_loop_) cannot(&op, "kteams on two loops of one block");
        kteam_loop_ = &op;
      }
      for (const ir::Block& r : op.regions) find(r, false);
    }
  };
  find(*kernel_, true);
  if (!kteam_loop_) throw InternalError("codegen: the warp roles have teams sharing a K loop, but no loop of the kernel says kteams");
  const Op& L = *kteam_loop_;
  const std::string kt = kteams_what();
  if (compute_wgs_ % teams_ != 0) cannot(&L, kt + " with " + std::to_string(compute_wgs_) + " compute warpgroups (not whole teams)");
  if (compute_wgs_ > 4)
    cannot(&L, kt + " with " + std::to_string(compute_wgs_ / teams_) + " warpgroups per tile: " + std::to_string(compute_wgs_) +
                   " compute warpgroups in all, at most 4 fit the register file",
           "use fewer warpgroups per tile (gemm_tile's G) or fewer teams");
  if (split_loop_) cannot(&L, kt + " together with " + split_what());
  if (L.pingpong) cannot(&L, kt + " together with pingpong");
  if (L.pipeline_depth % teams_ != 0)
    cannot(&L, kt + " with pipeline(" + std::to_string(L.pipeline_depth) + "): the ring's depth must be a multiple of the teams",
           "each ring slot serves one team");
  kteam_accs_ = summed_accumulators(L, kt, "teams", "team");
  // Every team runs the tile's code before the loop and in its own iterations, and a team starts the
  // next tile while team 0 may still run the last one's epilogue: a shared-memory tensor the compute
  // role writes there (a row vector cleared before the loop, an operand prologue's result kept in
  // shared memory) would be written by several teams at once, or under team 0's epilogue. (No program
  // the back end lowers today gets here past summed_accumulators; kept so that one that does is
  // refused, not raced.)
  if (const Op* w = team_shared_write(&L))
    cannot(w, kt + " with a shared-memory tensor the compute role writes before or in the shared loop",
           "every team runs the tile's code before the loop and its own iterations, and one team starts the next tile while "
           "team 0 finishes the last: keep the compute role's shared-memory work after the loop, or remove kteams");
  barriers_.push_back(Barrier{"bar_kteams_ready", team_wgs(), std::to_string((teams_ - 1) * 128),
                              "kteams: [w] the other teams' warpgroups of rank w have written their partial sums"});
  barriers_.push_back(Barrier{"bar_kteams_free", team_wgs(), "128", "kteams: [w] team 0's warpgroup w has read the other teams' partial sums"});
}

std::string CudaGen::kteams_what() const { return "kteams(" + std::to_string(teams_) + ")"; }

int64_t CudaGen::kteam_wg_bytes() const {
  int64_t regs = 0;
  for (auto& [name, n] : kteam_accs_) regs += n;
  return regs * 128 * 4;
}

int64_t CudaGen::kteam_buffers_bytes() const { return k_split_ ? (compute_wgs_ - team_wgs()) * kteam_wg_bytes() : 0; }

std::string CudaGen::kteam_first(const Op& loop) const { return var(loop.regions[0].args[0]) + "_first"; }

// The shared loop's head in the compute stream: this team's first iteration and its stride.
void CudaGen::kteam_loop_head(Stream& s, const Op& loop, const std::string& n) {
  const std::string k = var(loop.regions[0].args[0]), T = std::to_string(teams_), first = kteam_first(loop);
  s.line("// " + kteams_what() + ": this team's iterations, those whose ring positions are team mod " + T + " (kteams.cpp)");
  s.line("const int64_t " + first + " = static_cast<int64_t>((static_cast<uint64_t>(team) + " + T + "u - " + base(&loop) + " % " + T +
         "u) % " + T + "u);");
  s.line("for (int64_t " + k + " = " + first + "; " + k + " < " + n + "; " + k + " += " + T + ") {");
}

void CudaGen::emit_kteam_reduce(Stream& s, const Op& loop) {
  wgmma_drain(s, loop);
  const std::string T = std::to_string(teams_), G = std::to_string(team_wgs());
  const std::string wg_floats4 = std::to_string(kteam_wg_bytes() / 16), first = kteam_first(loop);
  s.line("// " + kteams_what() + ": add the teams' partial sums in the order of their classes (a class: the tile's iterations");
  s.line("// with one residue mod " + T + "); team 0 finishes the tile (kteams.cpp)");
  s.line("{");
  s.indent += 2;
  s.line("const int tid = loom::rt::thread_in_warpgroup();");
  s.line("const int64_t w = consumer_wg % " + G + ";  // the warpgroup's rank in its team");
  s.line("float4* const part = reinterpret_cast<float4*>(loom_kteams);  // [(team - 1) * " + G + " + w]");
  s.line("if (team != 0) {");
  s.indent += 2;
  s.line("if (tile_iter > 0) loom::rt::mbarrier::wait(&bar_kteams_free[w], (tile_iter - 1) & 1);  // team 0 has read the last tile's sums");
  s.line("float4* const mine = part + (consumer_wg - " + G + ") * " + wg_floats4 + ";  // (team - 1) * " + G + " + w");
  store_partial_sums(s, "mine", kteam_accs_);
  s.line("loom::rt::mbarrier::arrive(&bar_kteams_ready[w]);  // releases this thread's stores");
  s.indent -= 2;
  s.line("} else {");
  s.indent += 2;
  s.line("loom::rt::mbarrier::wait(&bar_kteams_ready[w], tile_iter & 1);  // every other team's sums");
  s.line("// the team of class c is (c + " + T + " - " + first + ") % " + T + " (team 0 holds class " + first + ")");
  int64_t q0 = 0;
  for (auto& [acc, n] : kteam_accs_) {
    s.line("#pragma unroll");
    s.line("for (int q = 0; q < " + std::to_string(n / 4) + "; ++q) {");
    s.line("  float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);");
    s.line("  #pragma unroll");
    s.line("  for (int c = 0; c < " + T + "; ++c) {");
    s.line("    const int64_t t = (c + " + T + " - " + first + ") % " + T + ";");
    s.line("    const float4 p = t == 0 ? make_float4(" + acc + "[4 * q], " + acc + "[4 * q + 1], " + acc + "[4 * q + 2], " + acc +
           "[4 * q + 3])");
    s.line("                            : part[((t - 1) * " + G + " + w) * " + wg_floats4 + " + (" + std::to_string(q0) +
           " + q) * 128 + tid];");
    s.line("    sum.x += p.x; sum.y += p.y; sum.z += p.z; sum.w += p.w;");
    s.line("  }");
    s.line("  " + acc + "[4 * q] = sum.x; " + acc + "[4 * q + 1] = sum.y; " + acc + "[4 * q + 2] = sum.z; " + acc + "[4 * q + 3] = sum.w;");
    s.line("}");
    q0 += n / 4;
  }
  s.line("loom::rt::mbarrier::arrive(&bar_kteams_free[w]);  // read");
  s.indent -= 2;
  s.line("}");
  s.indent -= 2;
  s.line("}");
  s.line("if (team == 0) {  // the rest of the tile: team 0 only");
  s.indent += 2;
  kteam_owner_open_ = true;
}

void CudaGen::end_kteam_owner(Stream& s) {
  if (!kteam_owner_open_) return;
  s.indent -= 2;
  s.line("}");
  kteam_owner_open_ = false;
}

// The partial-sum buffers on top of the mapping's shared memory (splitk.cpp, check_partial_sum_budget).
void CudaGen::check_kteam_budget() const {
  if (k_split_)
    check_partial_sum_budget(*kteam_loop_, kteams_what(), compute_wgs_ - team_wgs(), kteam_wg_bytes(),
                             "a lower pipeline(N) (a multiple of " + std::to_string(teams_) + ") or a smaller tile leaves room for them");
}

}  // namespace loom::codegen::detail
