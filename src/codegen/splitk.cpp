// splitk(S) (SPLIT-K in cuda_gen.h; docs/codegen.md, "Split-K"): the block's srange loop over K
// runs on a thread-block cluster of S blocks per output tile. The block of cluster rank r runs
// iterations [n r / S, n (r + 1) / S) of the loop's n into its own accumulator, which starts at 0
// in every block; then the S partial sums are added over distributed shared memory, with no global
// workspace and no atomics, as a binary tree in a fixed order (the same whatever the timing):
//   - warpgroup g's rows belong to the block of rank g mod S (the owner); a block's place in the
//     tree is its rank counted from the owner, r' = (r - g) mod S, and p'_j the partial sum of the
//     block at place j;
//   - at level l = 0, 1, ... (while 2^l < S) the block at place 2^(l+1) k + 2^l hands the sum it
//     holds to the block at 2^(l+1) k: it writes it into its shared buffer (16-byte stores,
//     register quadruple q of thread t at float4 index q * 128 + t) and arrives on that block's
//     `ready` barrier of the level (mbarrier.arrive.release.cluster, one arrival per thread), and
//     skips the rest of the tile; the receiver waits on it (acquire.cluster), adds the buffer
//     (ld.shared::cluster through mapa, every load of a batch in flight before the adds) after its
//     own sum, and arrives on the sender's `free` barrier. So S = 4 adds (p'0 + p'1) + (p'2 + p'3):
//     the owner reads ceil(log2 S) buffers, not S - 1, and the reads of one level run in parallel;
//   - the owner (place 0) then runs the rest of the tile (the epilogue).
// A sender waits on `free` (the receiver has read the previous tile's buffer) only before it
// writes the buffer again, so it starts its next tile at once. A block never leaves while a peer may
// still read its shared memory or arrive on its barriers (the cluster barrier at the kernel's exit).
// The barriers complete once per tile, so their parity is the tile count's, and the kernel stays
// persistent: each cluster runs tile after tile. Refused (a located "cannot lower ... yet"):
// anything in the split loop besides its TMA loads, tensor-core mma into f32 accumulators cleared to
// 0 before it and leaves or copies that write only tensors allocated inside the loop without reading
// an accumulator (an operand prologue); another loop, DMA work or a signal to the DMA role after it;
// waits across warpgroups after it; pingpong.
#include "codegen/cuda_gen.h"

#include <algorithm>

namespace loom::codegen::detail {

std::string CudaGen::loop_start(const Op* L) const {
  return L == split_loop_ ? var(L->regions[0].args[0]) + "_lo" : "0";
}

std::string CudaGen::loop_trips(const Op* L) const {
  const std::string k = var(L->regions[0].args[0]);
  return L == split_loop_ ? "(" + k + "_hi - " + k + "_lo)" : var(L->operands[0]);
}

int64_t CudaGen::split_wg_bytes() const {
  int64_t regs = 0;
  for (auto& [name, n] : split_accs_) regs += n;
  return regs * 128 * 4;
}

// The accumulators a loop shared between `who` ("blocks", "teams") sums, with their registers per
// thread (split_accs_, kteam_accs_): its body may only load (TMA), accumulate tensor-core products into
// f32 register fragments cleared to 0 before it, and prepare its own iteration's operands; nothing
// after it runs in the DMA role. Anything else is a located "cannot lower ... yet" naming `what`.
std::vector<std::pair<std::string, int64_t>> CudaGen::summed_accumulators(const Op& L, const std::string& what, const std::string& who,
                                                                            const std::string& one) {
  std::vector<std::pair<std::string, int64_t>> out;
  // The body: TMA loads, mma calls into accumulators, and work on values that live one iteration:
  // a leaf or copy that writes only tensors allocated inside the loop and reads no accumulator
  // (an operand prologue, relu_gemm's rectify: each block applies it to its own K steps' tiles).
  // Nothing else may carry a value out of an iteration.
  std::set<ValueId> accs;
  std::vector<const Op*> local_work;
  auto inside = [&](ValueId root) {  // allocated inside the loop: lives one iteration
    auto d = def_.find(root);
    if (d == def_.end() || d->second->kind != OpKind::Alloc) return false;
    for (const Op* p = parent_.at(d->second); p; p = parent_.at(p))
      if (p == &L) return true;
    return false;
  };
  for (const Op& o : L.regions[0].ops) {
    if (!ir::is_async(o.kind) || o.kind == OpKind::Join) continue;
    if (o.kind == OpKind::Copy && is_tma_copy(o)) continue;
    if (o.kind == OpKind::Call && o.name == "mma") {
      auto d = def_.find(o.operands[0]);
      if (d == def_.end() || d->second->kind != OpKind::Alloc || d->second->mem != MemKind::Register || f_.info(o.operands[0]).dtype != DType::F32)
        cannot(&o, what + " on a loop whose mma does not accumulate into an f32 register fragment");
      if (inside(o.operands[0])) local_work.push_back(&o);  // a product that lives one iteration (attention's scores)
      else accs.insert(o.operands[0]);
      continue;
    }
    if (o.kind == OpKind::Call || o.kind == OpKind::Copy) {
      local_work.push_back(&o);
      continue;
    }
    cannot(&o, what + " on a loop that does more than TMA loads and tensor-core mma",
           "only a sum can be split between " + who + ": the loop may only accumulate products");
  }
  if (accs.empty()) cannot(&L, what + " on a loop without an mma (nothing to sum)");
  for (const Op* o : local_work)
    for (ValueId v : o->operands) {
      if (f_.info(v).type != ir::Type::Tensor) continue;
      const ValueId r = root_of(v);
      const bool reads_acc = accs.count(r) > 0, escapes = writes_root(*o, r) && !inside(r);
      if (reads_acc || escapes)
        cannot(o, what + " on a loop that does more than TMA loads and tensor-core mma",
               "only a sum can be split between " + who + ": besides its loads and products the loop may only prepare its own "
               "iteration's operands, and `" + (o->name.empty() ? std::string("copy") : o->name) + "` " +
                   (reads_acc ? "uses the accumulator " : "writes ") + names_[static_cast<size_t>(r)] +
                   (reads_acc ? "" : ", which outlives the iteration"));
    }
  // Every accumulator starts at 0 (each block sums only its share) and nothing after the loop runs
  // in the DMA role (the peers skip the rest of the tile).
  bool before = true;
  std::set<ValueId> cleared;
  for (const Op& o : kernel_->ops) {
    if (&o == &L) {
      before = false;
      continue;
    }
    if (before) {
      if (o.kind == OpKind::Call && o.name == "fill" && accs.count(o.operands[0])) {
        auto v = def_.find(o.operands[1]);
        if (v != def_.end() && v->second->kind == OpKind::FConst && v->second->fval == 0.0) cleared.insert(o.operands[0]);
        else cleared.erase(o.operands[0]);
      } else if (ir::is_async(o.kind)) {
        for (ValueId a : accs)
          if (writes_root(o, a)) cleared.erase(a);
      }
      continue;
    }
    if (o.kind == OpKind::For) cannot(&o, "a loop after a " + what + " loop in the block");
    if (ws_ && has_role(o, ir::Role::Dma))
      cannot(&o, "DMA work after a " + what + " loop", "the other " + who + " of a shared tile do not run what follows the shared loop");
  }
  for (ValueId a : accs)
    if (!cleared.count(a))
      cannot(&L, what + " on a loop whose accumulator " + names_[static_cast<size_t>(a)] + " does not start at 0",
             "clear the accumulator before the loop (fill(Acc, 0)): every " + one + " sums only its share");
  for (ValueId a : accs) {
    const int64_t n = register_count(*def_.at(a));
    if (n % 4) cannot(&L, what + " with an accumulator of " + std::to_string(n) + " registers per thread (a multiple of 4)");
    out.emplace_back(var(a), n);
  }
  return out;
}

void CudaGen::plan_split() {
  std::function<void(const ir::Block&, bool)> find = [&](const ir::Block& b, bool top) {
    for (const Op& op : b.ops) {
      if (op.kind == OpKind::For && (op.split_k > 1 || op.stream_k)) {
        const std::string w = op.stream_k ? "streamk" : "splitk";
        if (!top) cannot(&op, w + " on a loop inside another loop of the block");
        if (split_loop_) cannot(&op, w + " on two loops of one block");
        split_loop_ = &op;
        split_ = op.stream_k ? 1 : op.split_k;
        stream_ = op.stream_k;
      }
      for (const ir::Block& r : op.regions) find(r, false);
    }
  };
  find(*kernel_, true);
  if (!split_loop_) return;
  const Op& L = *split_loop_;
  if (L.pingpong) cannot(&L, split_what() + " together with pingpong");
  if (compute_wgs_ < 1) cannot(&L, split_what() + " without compute warpgroups");
  split_accs_ = summed_accumulators(L, split_what(), "blocks", "block");
  if (stream_) {
    // The turns of one tile must agree on its iterations: the host shares sk_tiles x sk_iters of
    // them, sk_iters being the loop's trip count in the first tile.
    for (const Op* g : grid_)
      if (depends_on(L.operands[0], g->regions[0].args[0]))
        cannot(&L, "streamk on a loop whose trip count differs between tiles",
               "stream-K shares equal K loops between blocks; a loop whose length depends on the tile (causal attention) cannot be shared this way");
    return;
  }
  // Per compute warpgroup: `ready` for each level of the tree, completing at the receiver when the
  // sender's 128 threads have arrived; `free`, completing at a sender when the receiver's 128
  // threads have read its buffer (emit_split_reduce).
  barriers_.push_back(Barrier{"bar_splitk_ready", compute_wgs_ * split_levels(), "128",
                              "splitk: [g * " + std::to_string(split_levels()) +
                                  " + l] the partial sum a block hands on at level l of warpgroup g's tree is in its shared memory (at the receiver)"});
  barriers_.push_back(Barrier{"bar_splitk_free", compute_wgs_, "128",
                              "splitk: the receiver of this block's sum of warpgroup g's rows has read it"});
}

int64_t CudaGen::split_levels() const {
  int64_t l = 0;
  while ((int64_t{1} << l) < split_) ++l;
  return l;
}

// The thread's accumulators (`accs`, one after the other) into the float4 buffer `ptr` of its
// warpgroup: register quadruple q of thread tid at float4 q * 128 + tid (splitk's and kteams' hand-over).
void CudaGen::store_partial_sums(Stream& s, const std::string& ptr, const std::vector<std::pair<std::string, int64_t>>& accs) {
  int64_t q0 = 0;
  for (auto& [acc, n] : accs) {
    s.line("#pragma unroll");
    s.line("for (int q = 0; q < " + std::to_string(n / 4) + "; ++q) " + ptr + "[(" + std::to_string(q0) + " + q) * 128 + tid] = make_float4(" +
           acc + "[4 * q], " + acc + "[4 * q + 1], " + acc + "[4 * q + 2], " + acc + "[4 * q + 3]);");
    q0 += n / 4;
  }
}

void CudaGen::emit_split_reduce(Stream& s, const Op& loop) {
  wgmma_drain(s, loop);
  const std::string S = std::to_string(split_), L = std::to_string(split_levels());
  const std::string wg_floats4 = std::to_string(split_wg_bytes() / 16);
  s.line("// splitk(" + S + "): add the cluster's " + S + " partial sums as a tree over the blocks' places counted from the");
  s.line("// owner of warpgroup g's rows, the block of rank g % " + S + " (splitk.cpp): at level l the block at place");
  s.line("// 2^(l+1) k + 2^l hands its sum to the one at 2^(l+1) k, which adds it after its own");
  s.line("const uint32_t splitk_owner = static_cast<uint32_t>(consumer_wg % " + S + ");");
  s.line("const uint32_t splitk_place = (splitk_rank + " + S + " - splitk_owner) % " + S + ";");
  s.line("{");
  s.indent += 2;
  s.line("const int tid = loom::rt::thread_in_warpgroup();");
  s.line("float4* const part = reinterpret_cast<float4*>(loom_splitk) + consumer_wg * " + wg_floats4 + ";");
  s.line("#pragma unroll");
  s.line("for (uint32_t l = 0; l < " + L + "; ++l) {");
  s.indent += 2;
  s.line("const uint32_t half = 1u << l;");
  s.line("if (splitk_place & half) {  // hand this block's sum to the block `half` places before, and leave the tile to it");
  s.indent += 2;
  s.line("if (tile_iter > 0) loom::rt::mbarrier::wait_cluster(&bar_splitk_free[consumer_wg], (tile_iter - 1) & 1);  // the last tile's sum was read");
  store_partial_sums(s, "part", split_accs_);
  s.line("loom::rt::mbarrier::arrive_peer(&bar_splitk_ready[consumer_wg * " + L + " + l], (splitk_rank + " + S +
         " - half) % " + S + ");  // releases this thread's stores");
  s.line("break;");
  s.indent -= 2;
  s.line("}");
  s.line("if (splitk_place + half < " + S + ") {  // add the sum of the block `half` places after, after this block's");
  s.indent += 2;
  s.line("const uint32_t from = (splitk_rank + half) % " + S + ";");
  s.line("loom::rt::mbarrier::wait_cluster(&bar_splitk_ready[consumer_wg * " + L + " + l], tile_iter & 1);");
  s.line("const uint32_t peer = loom::rt::peer_smem(part, from);");
  // Each batch's loads are all issued before any of them is added, so the distributed-shared-memory
  // latency is paid once per batch of up to 16 quadruples (64 floats a thread), not once per load.
  int64_t q0 = 0;
  for (auto& [acc, n] : split_accs_) {
    int64_t Q = std::min<int64_t>(16, n / 4);
    while ((n / 4) % Q) --Q;
    const std::string QS = std::to_string(Q);
    s.line("#pragma unroll");  // static register indices
    s.line("for (int q0 = 0; q0 < " + std::to_string(n / 4) + "; q0 += " + QS + ") {");
    s.line("  float4 v[" + QS + "];");
    s.line("  #pragma unroll");
    s.line("  for (int j = 0; j < " + QS + "; ++j) v[j] = loom::rt::ld_peer_f32x4(peer + ((" + std::to_string(q0) + " + q0 + j) * 128 + tid) * 16);");
    s.line("  #pragma unroll");
    s.line("  for (int j = 0; j < " + QS + "; ++j) {");
    s.line("    const int q = q0 + j;");
    s.line("    " + acc + "[4 * q] += v[j].x; " + acc + "[4 * q + 1] += v[j].y; " + acc + "[4 * q + 2] += v[j].z; " + acc + "[4 * q + 3] += v[j].w;");
    s.line("  }");
    s.line("}");
    q0 += n / 4;
  }
  s.line("loom::rt::mbarrier::arrive_peer(&bar_splitk_free[consumer_wg], from);  // read");
  s.indent -= 2;
  s.line("}");
  s.indent -= 2;
  s.line("}");
  s.indent -= 2;
  s.line("}");
  s.line("if (splitk_place == 0) {  // the rest of the tile: the owner's warpgroup only");
  s.indent += 2;
  split_owner_open_ = true;
}

void CudaGen::end_split_owner(Stream& s) {
  if (!split_owner_open_) return;
  s.indent -= 2;
  s.line("}");
  split_owner_open_ = false;
}

// The partial-sum buffers (splitk's, kteams') come on top of the mapping's shared memory: a budget
// they do not fit is the mapping's error (the staging tiles are dropped first: cuda.cpp generates
// again without them). `what` is the option, `buffers` x `each` the buffers' bytes.
void CudaGen::check_partial_sum_budget(const Op& loop, const std::string& what, int64_t buffers, int64_t each,
                                       const std::string& hint) const {
  if (stage_bytes_) return;
  const int64_t budget = f_.smem.bytes > 0 ? f_.smem.bytes : f_.smem.machine_max;
  if (budget <= 0 || smem_bytes_ <= budget) return;
  Diagnostic d;
  d.loc = loop.loc;
  d.message = what + " needs " + std::to_string(smem_bytes_) + " bytes of shared memory with its partial-sum buffers (" +
              std::to_string(buffers) + " x " + std::to_string(each) + " bytes), over the budget of " + std::to_string(budget);
  d.hint = hint;
  throw CompileError(d);
}

void CudaGen::check_split_budget() const {
  if (split_loop_)
    check_partial_sum_budget(*split_loop_, split_what(), compute_wgs_, split_wg_bytes(), "a lower pipeline(N) or a smaller tile leaves room for them");
}

}  // namespace loom::codegen::detail
