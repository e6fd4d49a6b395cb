// Events (see EVENTS in cuda_gen.h): which compute-role events the DMA role waits for (signals,
// each an mbarrier the compute warps arrive on), and how every wait of an op on its preconditions
// is lowered: mbarrier waits, wgmma waits, arrivals, or nothing.
#include "codegen/cuda_gen.h"

#include <algorithm>

namespace loom::codegen::detail {

void CudaGen::plan_signals(const ir::Block& b) {
  for (const Op& op : b.ops) {
    bool dma_side = op.role == ir::Role::Dma || (op.kind == OpKind::For && ws_ && has_role(op, ir::Role::Dma));
    if (dma_side)
      for (const EventRef& r : op.after)
        if ((r.cross || op.kind == OpKind::For) && dma_conflicts(op, r)) plan_signal(op, r);
    for (const ir::Block& r : op.regions) plan_signals(r);
  }
}

bool CudaGen::has_role(const Op& op, ir::Role role) const {
  if (op.role == role) return true;
  for (const ir::Block& r : op.regions)
    for (const Op& o : r.ops)
      if (has_role(o, role)) return true;
  return false;
}

void CudaGen::plan_signal(const Op& waiter, const EventRef& r) {
  auto [producer, loop, distance] = producer_of(r.value);
  if (loop) {  // a carried event: the loop's yield
    loop = ring_head(loop);  // a ring chain releases its slots on its first loop's barrier (rings.cpp)
    if (signal_of_loop_.count(loop)) {
      Signal& s = signals_[static_cast<size_t>(signal_of_loop_[loop])];
      if (distance > s.ring) cannot(&waiter, "carried events of different distances into the DMA role");
      return;
    }
    const bool cluster = mc_heads_.count(loop) > 0;  // multicast.cpp: freed by the cluster's blocks
    const bool peers = mc_peer_heads_.count(loop) > 0;
    const bool per_wg = cluster && mc_wgmma_heads_.count(loop) > 0;
    Barrier bar{"bar_" + var(r.value), distance,
                std::to_string(team_wgs() * (per_wg ? 1 : 4) * (cluster ? mc_releasers(peers) : 1)),
                std::string(per_wg ? "compute warpgroups " : "compute warps ") +
                    std::string(!cluster ? "" : peers ? "of the blocks of this block's cluster row and column " : "of every block of the cluster ") +
                    "done with iteration k of the loop at line " + std::to_string(loop->loc.line) +
                    " (" + names_[static_cast<size_t>(r.value)] + ", distance " + std::to_string(distance) + ")"};
    bar.cluster = cluster;
    bar.peers = peers;
    bar.per_warpgroup = per_wg;
    barriers_.push_back(bar);
    Signal s{static_cast<int>(barriers_.size() - 1), loop, distance};
    signal_of_loop_[loop] = static_cast<int>(signals_.size());
    signals_.push_back(s);
    return;
  }
  if (!producer) return;
  if (producer->role == ir::Role::Dma) return;  // DMA program order / TMA barrier
  if (registers_only(*producer)) return;        // nothing the DMA role touches (see registers_only)
  if (signal_of_op_.count(producer)) return;
  if (enclosing_loop(producer) != nullptr) cannot(&waiter, "a DMA wait on a compute event inside a loop (not a yield)");
  refuse_per_tile_barrier(&waiter, "a DMA-role wait, once per tile, for the compute role's " +
                                       (producer->origin.empty() ? names_[static_cast<size_t>(r.value)] : producer->origin));
  Barrier bar{"bar_" + var(r.value), 1, std::to_string(compute_wgs_ * 4),
              "compute warps done with " + (producer->origin.empty() ? names_[static_cast<size_t>(r.value)] : producer->origin)};
  barriers_.push_back(bar);
  signal_of_op_[producer] = static_cast<int>(signals_.size());
  signals_.push_back(Signal{static_cast<int>(barriers_.size() - 1), nullptr, 1});
}

// Whether Y is a leaf call that writes only registers (private to each processor) and, unless
// shared_reads_ok, reads no shared memory.
bool CudaGen::leaf_touches_only(const Op& y, bool shared_reads_ok) const {
  // A copy between register residents (rows.cpp: row vectors, forwarded A operands) writes only
  // the thread's registers too.
  if (y.kind == OpKind::Copy && y.operands.size() == 2) {
    if (mem_of(y.operands[1]) != MemKind::Register) return false;
    const MemKind src = mem_of(y.operands[0]);
    return src == MemKind::Register || (shared_reads_ok && src == MemKind::Shared);
  }
  if (y.kind != OpKind::Call) return false;
  const LeafOp* lo = find_leaf_op(y.name);
  if (!lo) return false;
  for (size_t i = 0; i < y.operands.size(); ++i) {
    const ir::ValueInfo& vi = f_.info(y.operands[i]);
    if (vi.type != ir::Type::Tensor) continue;
    const MemKind mem = mem_of(y.operands[i]);
    bool writes = i >= lo->args.size() || lo->args[i].access != Access::Read;
    if (writes && mem != MemKind::Register) return false;
    if (!writes && !shared_reads_ok && mem == MemKind::Shared) return false;
  }
  return true;
}

// Whether compute op Y, and everything it waits for outside the DMA role, writes only the compute
// threads' registers (e.g. the fill of an accumulator). The DMA role reads global memory and
// writes shared memory, so it neither sees nor disturbs such an op: a DMA-role wait for it (a
// loop's preconditions passed on to its copies) is dropped instead of lowered to a barrier —
// that is what lets the producer start the next tile's loads while the consumers still run the
// epilogue.
bool CudaGen::registers_only(const Op& y) {
  if (y.role == ir::Role::Dma) return true;
  if (y.kind == OpKind::Join) {
    for (const EventRef& r : y.after) {
      auto [p, loop, d] = producer_of(r.value);
      if (loop || !p || !registers_only(*p)) return false;
    }
    return true;
  }
  if (!leaf_touches_only(y, /*shared_reads_ok=*/false)) return false;  // the DMA writes shared memory
  for (const EventRef& r : y.after) {
    auto [p, loop, d] = producer_of(r.value);
    if (loop || !p || !registers_only(*p)) return false;
  }
  return true;
}

// The op producing event value v; or, for a carried block argument, the loop and the distance.
std::tuple<const Op*, const Op*, int64_t> CudaGen::producer_of(ValueId v) const {
  auto d = def_.find(v);
  if (d != def_.end()) return {d->second, nullptr, 0};
  auto a = arg_loop_.find(v);
  if (a != arg_loop_.end() && a->second && a->second->kind == OpKind::For) {
    const Op* loop = a->second;
    const auto& args = loop->regions[0].args;
    for (size_t j = 1; j < args.size(); ++j)
      if (args[j] == v) return {nullptr, loop, ir::carried_distance(*loop, j - 1)};
  }
  return {nullptr, nullptr, 0};
}

const Op* CudaGen::enclosing_loop(const Op* op) const {
  for (const Op* p = parent_.at(op); p; p = parent_.at(p))
    if (p->kind == OpKind::For) return p;
  return nullptr;
}

void CudaGen::arrive(Stream& s, const Signal& sig, const std::string& slot) {
  const Barrier& b = barriers_[static_cast<size_t>(sig.barrier)];
  // After a split loop only the owner block's warpgroup runs on (splitk.cpp): the count of an
  // arrival the DMA role waits for would not be met.
  if (split_owner_open_ && &s == &compute_)
    cannot(split_loop_, "a signal to the DMA role after a " + split_what() + " loop (" + b.comment + ")",
           split_what() + " needs a block whose producer has nothing left to load after the shared loop");
  if (kteam_owner_open_ && &s == &compute_)
    cannot(kteam_loop_, "a signal to the DMA role after a " + kteams_what() + " loop (" + b.comment + ")",
           "only team 0 runs the rest of the tile: its arrivals would not meet a count of every team");
  s.line("__syncwarp();");
  s.line(arrive_stmt(b, slot) + "  // " + b.comment);
}

void CudaGen::wgmma_drain(Stream& s, const Op& /*why*/) {
  if (!s.wgmma_pending()) return;
  s.line("loom::rt::wgmma_wait<0>();");
  for (ValueId acc : accumulators_) s.line("loom::rt::wgmma_fence_operand(" + var(acc) + ");");
  const std::vector<Stream::Group> done = std::move(s.groups);
  s.groups.clear();
  for (const Stream::Group& g : done) group_done(s, g);
}

// Wait for the last committed group of mma Y, not for the groups committed after it: wgmma
// groups complete in order, so wgmma_wait<N> with N the groups after Y suffices. The count is
// only trusted when Y and every later group were committed unconditionally in the current
// straight-line scope (a loop body runs its groups once per iteration; a group committed under
// a run-time condition may not exist). Older groups still in flight at run time only make the
// wait stricter. Otherwise, and when Y is the last group, a full drain.
void CudaGen::wgmma_wait_for(Stream& s, const Op& y) {
  int64_t i = static_cast<int64_t>(s.groups.size()) - 1;
  while (i >= 0 && s.groups[static_cast<size_t>(i)].mma != &y) --i;
  const int64_t later = static_cast<int64_t>(s.groups.size()) - 1 - i;
  bool counted = i >= 0 && later > 0;
  for (int64_t j = std::max<int64_t>(i, 0); counted && j < static_cast<int64_t>(s.groups.size()); ++j) {
    const Stream::Group& g = s.groups[static_cast<size_t>(j)];
    if (g.scope != s.scope || g.conditional) counted = false;
  }
  if (!counted) return wgmma_drain(s, y);
  std::string still;
  for (size_t j = static_cast<size_t>(i) + 1; j < s.groups.size(); ++j)
    still += (still.empty() ? "" : ", ") + (s.groups[j].mma ? s.groups[j].mma->origin : std::string("?"));
  s.line("loom::rt::wgmma_wait<" + std::to_string(later) + ">();  // " + y.origin + " done; still running: " + still);
  std::vector<Stream::Group> done(s.groups.begin(), s.groups.begin() + i + 1);
  s.groups.erase(s.groups.begin(), s.groups.begin() + i + 1);
  std::set<std::string> fenced;
  for (const Stream::Group& g : done)
    if (!g.acc.empty() && fenced.insert(g.acc).second) s.line("loom::rt::wgmma_fence_operand(" + g.acc + ");");
  for (const Stream::Group& g : done) group_done(s, g);
}

// What waits on a group's completion: a rotated loop's release of ring slots (pingpong.cpp).
void CudaGen::group_done(Stream& s, const Stream::Group& g) {
  if (g.release_signal < 0) return;
  const Signal& sig = signals_[static_cast<size_t>(g.release_signal)];
  const std::string& comment = barriers_[static_cast<size_t>(sig.barrier)].comment;
  if (g.release_k.empty()) {
    s.line("// " + g.mma->origin + " has run: release its ring slot (" + comment + ")");
    arrive(s, sig, g.release_slot);
    return;
  }
  s.line("if (" + g.release_k + " > 0) {  // iteration " + g.release_k + " - 1's deferred mma has run: release it (" +
         comment + ")");
  s.indent += 2;
  arrive(s, sig, g.release_slot);
  s.indent -= 2;
  s.line("}");
}

// A rotated loop (pingpong.cpp) releases ring slots when their last reader's group is done: the
// late buffers of iteration k - 1 with the deferred mma W(k - 1) (issued in iteration k), the
// early ones of iteration k with their last reader in iteration k.
void CudaGen::arm_release(const Rotation& r, Stream::Group& g, bool late) {
  auto it = signal_of_loop_.find(r.loop);
  if (it == signal_of_loop_.end()) return;
  const int sig = late && r.late_signal >= 0 ? r.late_signal : it->second;
  const int64_t ring = barriers_[static_cast<size_t>(signals_[static_cast<size_t>(sig)].barrier)].ring;
  g.release_signal = sig;
  if (late) {
    g.release_slot = "(" + iter(r.loop) + " - 1) % " + std::to_string(ring);
    g.release_k = var(r.loop->regions[0].args[0]);
  } else {
    g.release_slot = iter(r.loop) + " % " + std::to_string(ring);
    g.release_k.clear();
  }
}

// After op, the early release of a rotated loop when op is the last reader of its early buffers:
// with its group when op is an mma, now otherwise (a register op has read shared memory in
// program order).
void CudaGen::rotated_release_early(Stream& s, const Rotation& r, const Op& op) {
  if (&op != r.early_last || r.late_signal < 0) return;
  if (is_wgmma(op)) return arm_release(r, s.groups.back(), /*late=*/false);
  Stream::Group g{&op};
  arm_release(r, g, /*late=*/false);
  group_done(s, g);
}

// The compute role's arrival for a loop's yield the DMA role waits for. A yield made of wgmmas
// is signaled one iteration late (wgmma_wait<1> after this iteration's commit), the last one after
// the loop; any other yield at the end of its iteration.
void CudaGen::yield_signal(Stream& s, const Op& loop, const Signal& sig, bool in_body) {
  if (in_body && rotation_ && rotation_->loop == &loop) return;  // arm_release: when the deferred mma is done
  const ir::Block& body = loop.regions[0];
  const std::string k = var(body.args[0]), g = iter(&loop);
  const Barrier& b = barriers_[static_cast<size_t>(sig.barrier)];
  const std::string R = std::to_string(b.ring);
  bool wg = yield_is_wgmma(loop);
  // kteams(T) (kteams.cpp): a team waits for its own wgmmas at the end of each of its iterations
  // (the other teams' keep the tensor cores busy) and releases the iteration's slots at once.
  const bool kt = &loop == kteam_loop_ && &s == &compute_;
  if (kt && wg) {
    if (!in_body) return;  // (every iteration released its slots in the body)
    s.line("// " + kteams_what() + ": this team's wgmmas of iteration " + k + " are done, the other teams' run on: release it (" +
           b.comment + ")");
    wgmma_drain(s, loop);
    s.line("__syncwarp();");
    s.line(arrive_stmt(b, g + " % " + R));
    return;
  }
  if (in_body) {
    if (wg) {
      s.line("// the tensor cores finished iteration " + k + " - 1: release it (" + b.comment + ")");
      s.line("loom::rt::wgmma_wait<" + std::to_string(wgmma_groups(loop)) + ">();  // this iteration's groups may still run");
      s.line("if (" + k + " > " + loop_start(&loop) + ") {");
      s.line("  __syncwarp();");
      s.line("  " + arrive_stmt(b, "(" + g + " - 1) % " + R));
      s.line("}");
      if (s.groups.empty()) s.groups.push_back({});  // this iteration's groups
    } else {
      arrive(s, sig, g + " % " + R);
    }
  } else if (wg) {
    const std::string n = loop_trips(&loop);
    wgmma_drain(s, loop);
    // A rotated loop released every iteration's early buffers in its body; the deferred mma of the
    // last iteration ran after it: its late buffers.
    const Barrier& last = rotation_ && rotation_->loop == &loop && rotation_->late_signal >= 0
                              ? barriers_[static_cast<size_t>(signals_[static_cast<size_t>(rotation_->late_signal)].barrier)]
                              : b;
    s.line("if (" + n + " > 0) {");
    s.line("  __syncwarp();");
    s.line("  " + arrive_stmt(last, "(" + base(&loop) + " + " + n + " - 1) % " + R));
    s.line("}");
  }
}

// How many wgmma commit groups one iteration of the loop issues (one per mma call); waiting
// until at most that many are pending leaves only this iteration's in flight.
int64_t CudaGen::wgmma_groups(const Op& loop) {
  int64_t n = 0;
  for (const Op& o : loop.regions[0].ops)
    if (is_wgmma(o)) ++n;
  if (n < 1 || n > 7) cannot(&loop, "a loop body with " + std::to_string(n) + " wgmma groups (1..7 are supported)");
  return n;
}

// Whether the loop's yield is (a join of) wgmma calls of its body only.
bool CudaGen::yield_is_wgmma(const Op& loop) {
  std::vector<const Op*> leaves;
  collect_producers(loop.regions[0].yield.value, leaves);
  // Besides wgmmas, only ops on the threads' registers, which are done (in program order) when
  // the deferred arrival comes.
  bool any = false;
  for (const Op* p : leaves) {
    if (is_wgmma(*p)) any = true;
    else if (!leaf_touches_only(*p, /*shared_reads_ok=*/true)) return false;
  }
  return any;
}

// A shared buffer that a TMA copy outside every loop fills once per tile (attention's Q tile) is
// read by the compute role until its last op that touches it, or touches another tensor sharing its
// bytes (resource allocation may overlap slots: FlashAttention-3's prologue K tile and the V ring);
// the next tile's copy must wait for that (the kernel is persistent: the IR's tiles are
// independent, the buffer is not). One barrier
// per such copy: the compute warps arrive after that op (its wgmmas drained), the DMA role waits
// for the previous tile's phase before reloading.
void CudaGen::plan_releases() {
  if (!ws_) return;
  auto touches_root = [&](const Op& op, ValueId root, auto&& self) -> bool {
    if (op.role == ir::Role::Dma) return false;
    for (ValueId o : op.operands)
      if (f_.info(o).type == ir::Type::Tensor && mem_of(o) == MemKind::Shared && same_memory(o, root)) return true;
    for (const ir::Block& r : op.regions)
      for (const Op& i : r.ops)
        if (self(i, root, self)) return true;
    return false;
  };
  for (const Op& c : kernel_->ops) {
    if (!is_tma_copy(c) || c.role != ir::Role::Dma) continue;
    const ValueId root = root_of(c.operands[1]);
    const Op* last = nullptr;
    for (const Op& op : kernel_->ops)
      if (&op != &c && touches_root(op, root, touches_root)) last = &op;
    if (!last) continue;
    refuse_per_tile_barrier(&c, "a buffer loaded once per tile (" + names_[static_cast<size_t>(root)] + ")");
    barriers_.push_back(Barrier{"bar_free_" + var(c.result), 1, std::to_string(compute_wgs_ * 4),
                                "compute warps done with " + names_[static_cast<size_t>(root)] + " for this tile"});
    const int b = static_cast<int>(barriers_.size() - 1);
    if (release_after_.count(last)) {
      release_wait_[&c] = release_after_[last];  // one release covers both
      barriers_.pop_back();
      continue;
    }
    release_after_[last] = b;
    release_wait_[&c] = b;
  }
}

void CudaGen::collect_producers(ValueId v, std::vector<const Op*>& out) {
  auto d = def_.find(v);
  if (d == def_.end()) return;
  if (d->second->kind == OpKind::Join) {
    for (const EventRef& r : d->second->after) collect_producers(r.value, out);
    return;
  }
  out.push_back(d->second);
}

// Emits what op X (in stream s, inside `loop` or at the kernel block's top level) must do before
// it starts, for its precondition r. See EVENTS in cuda_gen.h.
void CudaGen::wait(Stream& s, const Op& x, const EventRef& r, const Op* loop) {
  if (&s == &dma_ && !dma_conflicts(x, r)) return;  // sync.cpp: nothing the DMA op touches
  auto [producer, carried_loop, distance] = producer_of(r.value);
  if (carried_loop) {
    // Iteration k waits for iteration k - d's yield (the loop's preconditions for k < d, waited
    // before the loop).
    const std::string k = iter(carried_loop);
    if (&s == &dma_) {
      auto it = signal_of_loop_.find(ring_head(carried_loop));
      if (it == signal_of_loop_.end()) cannot(&x, "a DMA-role wait on a carried event without a signal");
      int sig = it->second;
      // A rotated loop's buffers that the deferred mma reads are released on a barrier of their own.
      if (rotation_ && rotation_->loop == carried_loop && rotation_->late_signal >= 0 && is_tma_copy(x) &&
          rotation_->late_roots.count(root_of(x.operands[1])))
        sig = rotation_->late_signal;
      const Barrier& b = barriers_[static_cast<size_t>(signals_[static_cast<size_t>(sig)].barrier)];
      const std::string D = std::to_string(distance), R = std::to_string(b.ring);
      const std::string key = b.name + "@" + D;
      if (s.waited.count(key)) return;
      s.waited.insert(key);
      s.line("if (" + k + " >= " + D + ") loom::rt::mbarrier::wait(&" + b.name + "[(" + k + " - " + D + ") % " + R +
             "], ((" + k + " - " + D + ") / " + R + ") & 1);  // " + names_[static_cast<size_t>(r.value)] + ": " + b.comment);
      return;
    }
    // Compute role: the yield's producers in iteration k - d.
    std::vector<const Op*> leaves;
    collect_producers(carried_loop->regions[0].yield.value, leaves);
    for (const Op* y : leaves) wait_compute(s, x, *y, /*same_iteration=*/false, r);
    return;
  }
  if (!producer) cannot(&x, "a wait on " + names_[static_cast<size_t>(r.value)]);
  if (producer->kind == OpKind::Join) {
    if (&s == &dma_ && producer->role != ir::Role::Dma) {
      if (registers_only(*producer)) return;
      dma_wait_signal(s, x, *producer, r);
      return;
    }
    for (const EventRef& q : producer->after) wait(s, x, q, loop);
    return;
  }
  if (producer->kind == OpKind::For) {
    // The whole loop: every iteration's yield. In the compute role all of them ran before this
    // op in program order; what may still be in flight is their wgmmas. The DMA role waits for
    // the compute warps' arrival after the loop (emit_op, once per tile; its wgmmas drained).
    if (&s == &dma_) return dma_wait_signal(s, x, *producer, r);
    std::vector<const Op*> leaves;
    collect_producers(producer->regions[0].yield.value, leaves);
    for (const Op* y : leaves) wait_compute(s, x, *y, false, r);
    return;
  }
  if (&s == &dma_) {
    if (producer->role == ir::Role::Dma) return;  // the same thread, in program order (TMA issue order)
    if (registers_only(*producer)) return;        // see registers_only
    dma_wait_signal(s, x, *producer, r);
    return;
  }
  wait_compute(s, x, *producer, true, r);
}

void CudaGen::dma_wait_signal(Stream& s, const Op& x, const Op& producer, const EventRef& r) {
  auto it = signal_of_op_.find(&producer);
  if (it == signal_of_op_.end()) cannot(&x, "a DMA-role wait on a compute event that has no signal");
  const Barrier& b = barriers_[static_cast<size_t>(signals_[static_cast<size_t>(it->second)].barrier)];
  if (s.waited.count(b.name)) return;
  s.waited.insert(b.name);
  s.line("loom::rt::mbarrier::wait(&" + b.name + "[0], tile_iter & 1);  // " + names_[static_cast<size_t>(r.value)] + ": " +
         b.comment + " (once per tile)");
}

// The waits of stream s that still hold inside loop L's body: those for TMA copies issued outside
// L (their barrier, slot and phase do not depend on L's index).
std::set<std::string> CudaGen::invariant_waits(const Stream& s, const Op& L) const {
  std::set<std::string> kept;
  for (const std::string& key : s.waited) {
    auto c = tma_wait_copy_.find(key);
    if (c == tma_wait_copy_.end()) continue;
    bool inside = false;
    for (auto p = parent_.find(c->second); p != parent_.end() && p->second && !inside; p = parent_.find(p->second))
      inside = p->second == &L;
    if (!inside) kept.insert(key);
  }
  return kept;
}

// Compute-role op X waits for Y (in the same iteration, or an earlier one).
void CudaGen::wait_compute(Stream& s, const Op& x, const Op& y, bool same_iteration, const EventRef& r) {
  if (is_tma_copy(y)) {
    if (!same_iteration) cannot(&x, "a wait on a TMA copy of an earlier iteration");
    // (Named after the copy's event: a deferred mma, pingpong.cpp, may wait for a copy emitted
    // later in the body.)
    const std::string bar = tma_barrier(y);
    const Op* L = enclosing_loop(&y);
    // Outside loops: a buffer loaded once per tile, its barrier's phase flips every tile.
    std::string slot = "0", parity = "tile_iter & 1";
    if (!L) refuse_per_tile_barrier(&y, "a buffer loaded once per tile (" + names_[static_cast<size_t>(root_of(y.operands[1]))] + ")");
    if (L) {
      const std::string k = iter(L), R = std::to_string(std::max<int64_t>(1, L->pipeline_depth));
      slot = k + " % " + R;
      parity = "(" + k + " / " + R + ") & 1";
    }
    if (s.waited.count(bar)) return;
    s.waited.insert(bar);
    tma_wait_copy_[bar] = &y;
    s.line("loom::rt::mbarrier::wait(&" + bar + "[" + slot + "], " + parity + ");  // " +
           names_[static_cast<size_t>(r.value)] + (async_copy_ ? ": async copy landed" : ": TMA copy landed"));
    // The async copies wrote through the generic proxy; wgmma reads through the async proxy (F8.1).
    if (async_copy_) s.line("loom::rt::fence_proxy_async_shared();  // the copy's generic writes, before wgmma reads them");
    return;
  }
  if (y.role == ir::Role::Dma) cannot(&x, "a compute wait on a DMA op that is not a TMA copy");
  if (y.kind == OpKind::Join) {
    for (const EventRef& q : y.after) {
      auto d = def_.find(q.value);
      if (d != def_.end()) wait_compute(s, x, *d->second, same_iteration, q);
      else wait(s, x, q, enclosing_loop(&x));
    }
    return;
  }
  // Y runs on the compute processors. Its instances on other processors: see EVENTS.
  if (!others_need_no_wait(x, y)) sync_others(s, x, y, same_iteration, r);
  // Its instance on this processor.
  if (is_wgmma(y)) {
    if (is_wgmma(x) && x.operands[0] == y.operands[0]) return;  // in issue order on one accumulator
    // An mma into another accumulator: X neither reads nor writes Y's registers, and what Y read
    // X waits for itself.
    if (!touches(x, y.operands[0]) && shared_operands_covered(x)) return;
    wgmma_wait_for(s, y);
    return;
  }
  // a per-thread op of this thread: program order.
}

// Whether X may skip waiting for Y's instances on other processors: Y writes only registers
// (private to each processor), and every SHARED operand of X comes from a TMA copy X waits for
// directly.
bool CudaGen::others_need_no_wait(const Op& x, const Op& y) {
  return leaf_touches_only(y, /*shared_reads_ok=*/true) && shared_operands_covered(x);
}

// Whether op x has tensor v (or a piece of it) among its operands.
bool CudaGen::touches(const Op& x, ValueId v) const {
  for (ValueId o : x.operands)
    if (f_.info(o).type == ir::Type::Tensor && piece_of(o, v)) return true;
  return false;
}

// Whether every SHARED operand of x comes from a TMA copy x waits for directly.
bool CudaGen::shared_operands_covered(const Op& x) {
  for (ValueId o : x.operands) {
    if (f_.info(o).type != ir::Type::Tensor || mem_of(o) != MemKind::Shared) continue;
    ValueId tile = view(o).frag ? view(o).frag->tile : o;
    bool covered = false;
    for (const EventRef& r : x.after) {
      auto d = def_.find(r.value);
      if (d != def_.end() && is_tma_copy(*d->second) && piece_of(tile, d->second->operands[1])) covered = true;
    }
    if (!covered) return false;
  }
  return true;
}

// Whether view `t` is `of` or a piece of it.
bool CudaGen::piece_of(ValueId t, ValueId of) const {
  for (ValueId v = t;;) {
    if (v == of) return true;
    auto d = def_.find(v);
    if (d == def_.end() || d->second->kind != OpKind::Piece) return false;
    v = d->second->operands[0];
  }
}

}  // namespace loom::codegen::detail
