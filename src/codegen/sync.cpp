// Waits for other processors' work (see EVENTS in cuda_gen.h): when op X waits for the instances of
// op Y on other processors (a broadcast reference `E[:, ...]`), what must be synchronized, and how.
//
//   * Footprints. Only data that one op writes and the other reads or writes in shared or global
//     memory needs ordering between processors: registers are private, and every other kind of
//     wait (a TMA copy, a wgmma) has its own rule. X's footprint is its operands, or for a loop the
//     operands of its ops in X's role (the loop's preconditions are waited for before it); Y's its
//     operands. Tensors kept in registers by the back end (rows.cpp: row vectors, forwarded A
//     operands) count as registers. No conflict: nothing to wait for. This relies on the event IR
//     giving every access a precondition on the last conflicting accesses of the same tensor
//     (dependence analysis; copy elimination keeps those edges when it forwards joins), so that
//     what Y itself waited for and X touches, X waits for directly.
//   * Who takes part. For each conflicting pair of accesses to one root, the pieces they cut alike
//     from the root (the same partition with the same blocks and indices) that give processors of
//     a level disjoint parts (a `blocks` or `slices` piece indexed by proc_index P, an accumulator
//     `mma` piece indexed by P; not the row pieces that the lanes of a quad share, nor a wgmma
//     A/B operand) separate that level: instances that differ there touch different elements.
//     A point-wise index in the reference (`E[%g, :, :]`) separates its level too. Then
//       WARPGROUP, WARP and THREAD separated -> nothing (this thread's own instance: program order);
//       WARPGROUP and WARP                   -> __syncwarp() (the lanes of this warp);
//       WARPGROUP                            -> named barrier 2C + 1 + consumer_wg, 128 threads;
//       otherwise                            -> named barrier 3C + 1 over the C compute warpgroups
//                                               (alternate(T): 3C + 1 + team over the team's G).
//     (C = compute warpgroups; with one a tile, WARPGROUP is always separated. Barrier ids: 0 is
//     __syncthreads, 1..C the epilogue's, C + 1..2C pingpong's or alternate's turns.) bar.sync and __syncwarp
//     order the shared- and global-memory accesses of the threads taking part (PTX memory model).
//   * Persistent tiles: at the end of a tile, the same rule over every pair of compute accesses of a
//     shared buffer the compute role writes (the next tile rewrites it): tile_end_sync.
//   * The DMA role waits for a compute event only when the two touch the same shared or global
//     tensor (dma_conflicts); otherwise it has no signal to wait on.
//   * Placement: just before X, once per producer and scope (s.waited); every compute thread runs
//     the compute stream's code in the same order, so all the threads a barrier counts reach it.
// Test: tests/unit/codegen_test.cpp (Codegen.Golden: gemm_reduce and gemm_reduce_shared among the
// goldens; Codegen.EveryReleaseBarrierIsWaitedFor).
#include "codegen/cuda_gen.h"

#include <algorithm>
#include <functional>

namespace loom::codegen::detail {

namespace {

int level_rank(ProcKind p) {
  switch (p) {
    case ProcKind::Warpgroup: return 0;
    case ProcKind::Warp: return 1;
    case ProcKind::Thread: return 2;
    default: return -1;
  }
}

}  // namespace

// The shared- and global-memory tensors op accesses: (view, written). A loop: its ops of `role`.
void CudaGen::memory_accesses(const Op& op, ir::Role role, std::vector<std::pair<ValueId, bool>>& out) const {
  auto add = [&](ValueId v, bool written) {
    if (f_.info(v).type != ir::Type::Tensor) return;
    const MemKind m = mem_of(v);
    if (m == MemKind::Shared || m == MemKind::Global) out.push_back({v, written});
  };
  if (op.kind == OpKind::For) {
    for (const Op& o : op.regions[0].ops)
      if (o.kind == OpKind::For || !ws_ || o.role == role) memory_accesses(o, role, out);
    return;
  }
  if (op.kind == OpKind::Copy && op.operands.size() == 2) {
    add(op.operands[0], false);
    add(op.operands[1], true);  // a reducing copy also reads it: written covers both
    return;
  }
  if (op.kind != OpKind::Call) return;
  const LeafOp* lo = find_leaf_op(op.name);
  for (size_t i = 0; i < op.operands.size(); ++i)
    add(op.operands[i], !lo || i >= lo->args.size() || lo->args[i].access != Access::Read);
}

// Whether views a and b may touch the same bytes: the same root, or two shared roots whose slots
// overlap (resource allocation lets tensors whose accesses it ordered share bytes: FlashAttention-3's
// prologue K tile and the V ring. The order is an event of the IR, often a loop's precondition
// that the DMA role, running ahead, would not otherwise wait for.)
bool CudaGen::same_memory(ValueId a, ValueId b) const {
  const ValueId ra = root_of(a), rb = root_of(b);
  if (ra == rb) return true;
  auto sa = f_.smem_slots.find(ra), sb = f_.smem_slots.find(rb);
  if (sa == f_.smem_slots.end() || sb == f_.smem_slots.end()) return false;
  return sa->second.offset < sb->second.offset + sb->second.bytes && sb->second.offset < sa->second.offset + sa->second.bytes;
}

// The piece ops from the root down to view v (root first).
std::vector<const Op*> CudaGen::piece_chain(ValueId v) const {
  std::vector<const Op*> chain;
  for (;;) {
    auto d = def_.find(v);
    if (d == def_.end() || d->second->kind != OpKind::Piece) break;
    chain.push_back(d->second);
    v = d->second->operands[0];
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

// The levels (bits 1 << level_rank) on which accesses through views a and b of one root are
// separated: see "Who takes part" above.
unsigned CudaGen::separated_levels(ValueId a, ValueId b) const {
  const std::vector<const Op*> ca = piece_chain(a), cb = piece_chain(b);
  unsigned sep = 0;
  for (size_t i = 0; i < ca.size() && i < cb.size(); ++i) {
    const Op& p = *ca[i];
    const Op& q = *cb[i];
    if (&p != &q && (!(p.part == q.part) || p.operands != q.operands)) break;
    bool disjoint = p.part.kind != PartitionSpec::Kind::Mma;
    if (p.part.kind == PartitionSpec::Kind::Mma)
      disjoint = p.part.role == MmaRole::Acc && (p.part.holder == ProcKind::Warpgroup || f_.info(p.operands[0]).rank >= 2);
    if (!disjoint) continue;
    for (size_t j = 1; j < p.operands.size(); ++j) {
      auto d = def_.find(p.operands[j]);
      if (d != def_.end() && d->second->kind == OpKind::ProcIndex && level_rank(d->second->proc) >= 0)
        sep |= 1u << level_rank(d->second->proc);
    }
  }
  return sep;
}

// Which compute threads must synchronize before X for Y's instances on other processors (reached
// through reference r): see the file comment.
CudaGen::SyncScope CudaGen::sync_scope(const Op& x, const Op& y, const EventRef& r) const {
  std::vector<std::pair<ValueId, bool>> xs, ys;
  memory_accesses(x, ir::Role::Compute, xs);
  memory_accesses(y, ir::Role::Compute, ys);
  unsigned pointwise = team_wgs() == 1 ? 1u : 0u;
  const ir::ValueInfo& ev = f_.info(r.value);
  for (size_t d = 0; d < r.indices.size() && d < ev.event_dims.size(); ++d)
    if (r.indices[d] != kNone && level_rank(ev.event_dims[d]) >= 0) pointwise |= 1u << level_rank(ev.event_dims[d]);
  SyncScope scope = SyncScope::None;
  for (auto& [xv, xw] : xs)
    for (auto& [yv, yw] : ys) {
      if (!xw && !yw) continue;
      if (root_of(xv) != root_of(yv)) {
        if (same_memory(xv, yv)) scope = SyncScope::Block;  // other tensors in the same bytes: no common pieces
        continue;
      }
      scope = std::max(scope, scope_of(separated_levels(xv, yv) | pointwise));
    }
  return scope;
}

CudaGen::SyncScope CudaGen::scope_of(unsigned separated) const {
  if (team_wgs() == 1) separated |= 1u;
  if ((separated & 7u) == 7u) return SyncScope::None;
  if ((separated & 3u) == 3u) return SyncScope::Warp;
  if (separated & 1u) return SyncScope::Warpgroup;
  return SyncScope::Block;
}

// Whether DMA-role op X (or loop: its DMA ops) touches shared or global memory that a compute-role
// producer of r writes, or writes memory one reads. When not, the DMA role does not wait for it
// at all (no signal): gemm_reduce's producer loads the next column tile's operands while the
// consumers still fold row sums and store the previous tile. The ring slots the TMA copies refill
// are released by their own carried event (the K loop's), which conflicts and stays.
//
// A ring chain (rings.cpp) is the same: the second loop's copies refill the slots the first loop
// read, and the pipelining pass made them wait for the whole first loop (the IR cannot name one of
// its iterations; warp_specialize.h, SHARED RINGS). On the GPU the chain's release barrier already
// orders each refill after the read of the slot it overwrites (the counter runs on across the
// loops), so a read of a chain buffer by the earlier loop of the chain is no conflict: the producer
// loads the second loop's first slots while the consumers finish the first loop, with no barrier
// once per tile between them (add_gemm's K and L loops; what lets it take alternate(T)).
bool CudaGen::dma_conflicts(const Op& x, const EventRef& r) {
  std::vector<std::pair<const Op*, const Op*>> ys;  // (y, the finished loop whose body it is in, if any)
  const Op* x_loop = x.kind == OpKind::For ? &x : enclosing_loop(&x);
  bool unknown = false;
  std::set<ValueId> seen;
  // A loop's event (its yield, carried or final) stands for the end of a whole iteration: every
  // op of the body is done, not only the yield's direct producers (an mma that a later op of the
  // iteration waited for drops out of the yield's join, but its reads of a ring slot still
  // conflict with the copy that refills the slot). The ops of an inner loop are left out: the
  // slots of the inner loop's ring are released by that loop's own carried event, which the copies
  // refilling them wait for (gemm_reduce's column loop around its K loop).
  std::function<void(const ir::Block&, const Op*)> body = [&](const ir::Block& b, const Op* finished) {
    for (const Op& o : b.ops) {
      if (o.kind == OpKind::Copy || o.kind == OpKind::Call) ys.push_back({&o, finished});
      if (o.kind != OpKind::For)
        for (const ir::Block& inner : o.regions) body(inner, finished);
    }
  };
  std::function<void(ValueId)> collect = [&](ValueId v) {
    if (!seen.insert(v).second) return;
    auto [p, loop, d] = producer_of(v);
    if (loop) return body(loop->regions[0], nullptr);
    if (!p) {
      unknown = true;
      return;
    }
    if (p->kind == OpKind::Join) {
      for (const EventRef& q : p->after) collect(q.value);
      return;
    }
    if (p->kind == OpKind::For) return body(p->regions[0], p);
    ys.push_back({p, nullptr});
  };
  collect(r.value);
  if (unknown) return true;
  std::vector<std::pair<ValueId, bool>> xs;
  memory_accesses(x, ir::Role::Dma, xs);
  // (x's loop continues a chain: an earlier loop of it may have read the buffers x refills)
  const std::set<ValueId> chain_buffers = x_loop && ring_head(x_loop) != x_loop ? ring_buffers(*ring_head(x_loop)) : std::set<ValueId>{};
  const std::set<ValueId> none;
  for (auto& [y, from] : ys) {
    if (y->role == ir::Role::Dma) continue;  // the DMA role's own program order
    std::vector<std::pair<ValueId, bool>> ya;
    memory_accesses(*y, ir::Role::Compute, ya);
    // The chain's buffers, where y is in an earlier loop of x's ring chain.
    const std::set<ValueId>& chain = from && x_loop && from != x_loop && ring_head(x_loop) == ring_head(from) ? chain_buffers : none;
    for (auto& [xv, xw] : xs)
      for (auto& [yv, yw] : ya) {
        if (!(xw || yw) || !same_memory(xv, yv)) continue;
        if (xw && !yw && root_of(xv) == root_of(yv) && chain.count(root_of(xv))) continue;  // the chain's release
        return true;
      }
  }
  return false;
}

// The kernel is persistent: the next tile's compute ops reuse the shared buffers this tile's
// compute ops wrote and read (the IR's tiles are independent, the kernel's buffers are not). At the
// end of a tile, the threads whose accesses of such a buffer may meet synchronize (the scope rule
// above, over every pair of accesses of the buffer with a write).
void CudaGen::tile_end_sync(Stream& s) {
  std::map<ValueId, std::vector<std::pair<ValueId, bool>>> by_root;
  std::set<ValueId> tma_written;
  std::function<void(const ir::Block&)> walk = [&](const ir::Block& b) {
    for (const Op& op : b.ops) {
      if (op.kind == OpKind::For) {
        walk(op.regions[0]);
        continue;
      }
      if (op.kind != OpKind::Copy && op.kind != OpKind::Call) continue;
      if (op.role == ir::Role::Dma || (op.kind == OpKind::Copy && is_tma_copy(op))) {
        if (op.kind == OpKind::Copy && op.operands.size() == 2) tma_written.insert(root_of(op.operands[1]));
        continue;
      }
      std::vector<std::pair<ValueId, bool>> acc;
      memory_accesses(op, ir::Role::Compute, acc);
      for (auto& a : acc)
        if (mem_of(a.first) == MemKind::Shared) by_root[root_of(a.first)].push_back(a);
    }
  };
  walk(*kernel_);
  SyncScope scope = SyncScope::None;
  std::string names;
  for (auto& [root, acc] : by_root) {
    if (tma_written.count(root)) continue;  // TMA buffers: their own barriers
    SyncScope here = SyncScope::None;
    for (auto& [a, aw] : acc)
      for (auto& [b, bw] : acc)
        if (aw || bw) here = std::max(here, scope_of(separated_levels(a, b)));
    if (here == SyncScope::None) continue;
    scope = std::max(scope, here);
    names += (names.empty() ? "" : ", ") + names_[static_cast<size_t>(root)];
  }
  const std::string what = "the next tile rewrites " + names;
  switch (scope) {
    case SyncScope::Warp: s.line("__syncwarp();  // " + what); break;
    case SyncScope::Warpgroup:
      s.line("loom::rt::named_barrier_sync(" + std::to_string(sync_barrier0()) + " + consumer_wg, 128);  // " + what);
      break;
    case SyncScope::Block: s.line(team_sync_line(what)); break;
    case SyncScope::None: break;
  }
}

// The first named barrier of the compute-role syncs (after the epilogue's and pingpong's).
int64_t CudaGen::sync_barrier0() const { return 1 + 2 * compute_wgs_; }

// A sync of the compute warpgroups that run a tile: all of them, or with alternate(T) the team's
// (its own barrier, 2C + 1 + C + team; a one-warpgroup team syncs on the warpgroup's barrier).
std::string CudaGen::team_sync_line(const std::string& what) const {
  if (teams_ > 1 && team_wgs() == 1)
    return "loom::rt::named_barrier_sync(" + std::to_string(sync_barrier0()) + " + consumer_wg, 128);  // " + what;
  if (teams_ > 1)
    return "loom::rt::named_barrier_sync(" + std::to_string(sync_barrier0() + compute_wgs_) + " + team, " +
           std::to_string(128 * team_wgs()) + ");  // " + what + " (the team's warpgroups)";
  return "loom::rt::named_barrier_sync(" + std::to_string(sync_barrier0() + compute_wgs_) + ", " + std::to_string(128 * compute_wgs_) +
         ");  // " + what;
}

// Emits the synchronization X needs before it for Y's instances on other processors.
void CudaGen::sync_others(Stream& s, const Op& x, const Op& y, bool same_iteration, const EventRef& r) {
  const SyncScope scope = sync_scope(x, y, r);
  if (scope == SyncScope::None) return;
  // Once per producer (and iteration) in a straight-line scope: a wider barrier covers a narrower.
  const std::string key = "sync:" + std::to_string(y.result) + (same_iteration ? "" : "@prev");
  for (int w = static_cast<int>(scope); w <= static_cast<int>(SyncScope::Block); ++w)
    if (s.waited.count(key + "/" + std::to_string(w))) return;
  s.waited.insert(key + "/" + std::to_string(static_cast<int>(scope)));
  const std::string what = y.origin + (same_iteration ? "" : " (previous iteration)");
  switch (scope) {
    case SyncScope::Warp:
      s.line("__syncwarp();  // " + what + " on the other lanes of this warp");
      break;
    case SyncScope::Warpgroup:
      s.line("loom::rt::named_barrier_sync(" + std::to_string(sync_barrier0()) + " + consumer_wg, 128);  // " + what +
             " on the other warps of this warpgroup");
      break;
    case SyncScope::Block:
      // After a split loop each warpgroup finishes its rows in its own block (splitk.cpp).
      if (split_owner_open_ && !stream_)
        cannot(&x, "a wait for the other compute warpgroups after a splitk loop",
               "after the split loop, each warpgroup's rows are finished in another block of the cluster");
      s.line(team_sync_line(what + " on the other compute warpgroups"));
      break;
    case SyncScope::None: break;
  }
}

}  // namespace loom::codegen::detail
