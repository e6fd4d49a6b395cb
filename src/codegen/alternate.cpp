// Teams that take the block's tiles in turn (the mapping's `alternate(T)` on a warp-specialized
// loop; docs/mapping.md): the compute role's T x G warpgroups form T teams of the G warpgroups a
// tile takes, and team t runs the block's tiles number t, t + T, t + 2T, ... (its `tile_iter`
// counts every tile of the block, its own and the others'). The DMA role is unchanged: it walks
// every tile of the block in order and fills one ring, so the team that runs tile n + 1 finds its
// first slots loaded while the team of tile n still runs its last iterations and its epilogue
// (CUTLASS's ping-pong GEMM: one team's epilogue runs under the next team's main loop).
//
//   * Ring positions. Every team keeps the block's running counters of the tile's loops (the
//     barrier phases and slots continue over all tiles): for a tile of another team it adds the
//     tile's trip counts, recomputed from the tile's indices in a scope of their own
//     (alternate_skip), and goes on to the next tile without waiting or arriving anywhere.
//   * Turns on the ring. A team starts a tile's loop only after the team of the tile before has
//     left its own (named barrier turn0 + team, its G x 128 threads and the previous team's):
//     a ring slot's barrier tells its phases apart by parity only, so a team must not wait for a
//     position more than one round of the ring ahead of the last one waited for, which the
//     previous tile's team has by then (CUTLASS orders its ping-pong math warpgroups the same
//     way). The epilogues are outside the turns: that is the overlap. The last team arrives on
//     team 0's barrier once before the tile loop, and the team whose turn is next after the
//     block's last tile takes that hand-over after the loop, so every arrival is matched.
//   * Barriers. A ring slot is released by the warps of the one team that read it (count G x 4,
//     events.cpp); the compute role's block-wide syncs are the team's (sync.cpp: named barrier
//     2C + 1 + C + team over G x 128 threads, or the warpgroup's own barrier when G = 1); the
//     warpgroup index a tile's code sees is the warpgroup's rank in its team.
//   * Not with (located errors): a buffer loaded once per tile or a compute event the DMA role
//     waits for once per tile (their single barrier's phases would alias between the teams),
//     loops nested in a tile loop or more than one loop in a tile (the turn covers one), a tensor in
//     shared memory that the compute role writes (one buffer for teams on different tiles: a row
//     vector kept in shared memory), splitk / streamk / pingpong, and more than the machine's compute
//     warpgroups in all.
//   * With multicast(S): the cluster's blocks walk the same tiles in the same order, so the team
//     that runs a tile in one block runs its neighbours in the others and releases each slot in
//     every block (events.cpp: count 4 G S); every block's slot still takes a share from every
//     block per iteration, so multicast's phase argument holds.
#include "codegen/cuda_gen.h"

namespace loom::codegen::detail {

void CudaGen::plan_alternate() {
  teams_ = ws_ ? std::max<int64_t>(1, f_.warp_roles->teams) : 1;
  if (teams_ <= 1) return;
  k_split_ = f_.warp_roles->k_split;
  if (k_split_) return plan_kteams();  // kteams.cpp: the teams share every tile
  // The loop that says alternate (for the errors' location), and any loop that also takes turns.
  const Op* at = nullptr;
  const Op* turns = nullptr;
  std::function<void(const ir::Block&)> find = [&](const ir::Block& b) {
    for (const Op& op : b.ops) {
      if (op.kind == OpKind::For && op.alternate > 1 && !at) at = &op;
      if (op.kind == OpKind::For && op.pingpong && !turns) turns = &op;
      for (const ir::Block& r : op.regions) find(r);
    }
  };
  find(*kernel_);
  const std::string alt = "alternate(" + std::to_string(teams_) + ")";
  if (compute_wgs_ % teams_ != 0) cannot(at, alt + " with " + std::to_string(compute_wgs_) + " compute warpgroups (not whole teams)");
  if (compute_wgs_ > 4)
    cannot(at, alt + " with " + std::to_string(compute_wgs_ / teams_) + " warpgroups per tile: " + std::to_string(compute_wgs_) +
                   " compute warpgroups in all, at most 4 fit the register file",
           "use fewer warpgroups per tile (gemm_tile's G) or fewer teams");
  if (split_loop_) cannot(at, alt + " together with " + std::string(stream_ ? "streamk" : "splitk"));
  if (turns) cannot(turns, alt + " together with pingpong");
  // Teams run different tiles at once, and a tensor of the tile has one slot in shared memory.
  if (const Op* w = team_shared_write(nullptr))
    cannot(w, alt + " with a shared-memory tensor the compute role writes",
           "the teams run different tiles at once, and the tensor has one buffer in the block: keep it in registers, or remove alternate");
}

// The first op of the compute role that writes a tensor kept in shared memory (not a TMA copy): in
// the whole tile, or with `upto` (a loop of the tile) before the loop and in its body; else nullptr.
const Op* CudaGen::team_shared_write(const Op* upto) {
  const Op* found = nullptr;
  bool done = false;
  std::function<void(const ir::Block&)> walk = [&](const ir::Block& b) {
    for (const Op& o : b.ops) {
      if (done || found) return;
      const bool compute = (o.kind == OpKind::Call || (o.kind == OpKind::Copy && !is_tma_copy(o))) && !(ws_ && has_role(o, ir::Role::Dma));
      if (compute)
        for (ValueId v : o.operands)
          if (!found && f_.info(v).type == ir::Type::Tensor && mem_of(root_of(v)) == MemKind::Shared && writes_root(o, root_of(v)))
            found = &o;
      for (const ir::Block& r : o.regions) walk(r);
      if (&o == upto) done = true;
    }
  };
  walk(*kernel_);
  return found;
}

int64_t CudaGen::team_wgs() const { return compute_wgs_ / std::max<int64_t>(1, teams_); }

void CudaGen::refuse_per_tile_barrier(const Op* at, const std::string& what) const {
  if (k_split_)
    cannot(at, kteams_what() + " with " + what,
           "its barrier's arrivals would count every team, but only team 0 runs the rest of the tile; remove kteams");
  if (teams_ > 1)
    cannot(at, "alternate(" + std::to_string(teams_) + ") with " + what,
           "its one barrier would flip phase once per tile for teams that run every other tile; remove alternate");
}

void CudaGen::refuse_nested(const Op& loop) const {
  if (parent_.at(&loop) != grid_.back())
    cannot(&loop, "alternate(" + std::to_string(teams_) + ") with a loop nested in another loop of the tile",
           "the teams skip each other's tiles by their trip counts, known only for the tile's outermost loops");
}

// The start of a compute-role tile: another team's tile only advances the running counters.
void CudaGen::alternate_skip(std::ostream& o, const std::string& in) {
  if (teams_ <= 1 || k_split_) return;
  o << in << "if (tile_iter % " << teams_ << " != team) {  // alternate(" << teams_
    << "): another team's tile; its loops' iterations continue the rings\n";
  std::set<ValueId> have = prologue_have_;
  for (const Op* L : compute_loops_) {
    refuse_nested(*L);
    for (const std::string& l : slice_lines(L->operands[0], have, *L, "alternate: the trip count of another team's tile"))
      o << in << "  " << l << "\n";
    o << in << "  " << base(L) << " += " << loop_trips(L) << ";\n";
  }
  o << in << "  ++tile_iter;\n" << in << "  continue;\n" << in << "}\n";
}

int64_t CudaGen::alternate_barrier0() const { return 1 + compute_wgs_; }  // pingpong's ids: never both

std::string CudaGen::alternate_threads() const { return std::to_string(2 * 128 * team_wgs()); }

// A team's turn spans the loops of one ring chain (rings.cpp: add_gemm's K and L loops run one
// ring): it starts before the chain's first loop and ends after its last.
void CudaGen::alternate_turn_begin(Stream& s, const Op& loop) {
  if (teams_ <= 1 || k_split_ || &s != &compute_) return;
  refuse_nested(loop);
  if (alternate_loop_ && ring_head(alternate_loop_) == ring_head(&loop) && &loop != alternate_loop_) return;  // the turn goes on
  if (alternate_loop_ && alternate_loop_ != &loop)
    cannot(&loop, "alternate(" + std::to_string(teams_) + ") with a second loop in the tile that does not continue the first's ring",
           "the teams take turns on one ring; keep one srange loop in the block variant (or loops over buffers of the same "
           "shapes and depth, which share a ring), or remove alternate");
  alternate_loop_ = &loop;
  s.line("loom::rt::named_barrier_sync(" + std::to_string(alternate_barrier0()) + " + team, " + alternate_threads() +
         ");  // alternate: this team's turn on the ring (the previous tile's team has left its loop)");
}

void CudaGen::alternate_turn_end(Stream& s, const Op& loop) {
  if (teams_ <= 1 || &s != &compute_ || !alternate_loop_ || ring_head(alternate_loop_) != ring_head(&loop) || ring_tail(&loop) != &loop)
    return;
  s.line("loom::rt::named_barrier_arrive(" + std::to_string(alternate_barrier0()) + " + (team + 1) % " + std::to_string(teams_) + ", " +
         alternate_threads() + ");  // alternate: the next tile's team may start its loop");
}

void CudaGen::alternate_before_tiles(std::ostream& o, const std::string& ind) const {
  if (teams_ <= 1 || k_split_) return;
  o << ind << "if (team == " << teams_ - 1 << ") loom::rt::named_barrier_arrive(" << alternate_barrier0() << ", " << alternate_threads()
    << ");  // alternate: team 0 takes the first turn\n";
}

void CudaGen::alternate_after_tiles(std::ostream& o, const std::string& ind) const {
  if (teams_ <= 1 || k_split_) return;
  o << ind << "if (team == tile_iter % " << teams_ << ") loom::rt::named_barrier_sync(" << alternate_barrier0() << " + team, "
    << alternate_threads() << ");  // alternate: the hand-over after the block's last tile\n";
}

}  // namespace loom::codegen::detail
