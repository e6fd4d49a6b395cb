// Rings shared by consecutive loops (see RING CHAINS in cuda_gen.h): the pipelining pass lets a
// pipelined loop take over the ring buffers of the block's previous pipelined loop
// (src/passes/warp_specialize.h, SHARED RINGS; examples/add_gemm's K loop over A, B and L loop
// over C, D). On the GPU the two loops then run one ring: one running position, one TMA barrier
// per buffer, one release barrier, so the slots and barrier phases of the second loop continue
// where the first stopped, as they continue from one tile to the next.
#include "codegen/cuda_gen.h"

namespace loom::codegen::detail {


void CudaGen::plan_ring_chains(const ir::Block& b) {
  auto tma = [&](const Op& op) { return op.kind == OpKind::Copy && is_tma_copy(op); };
  const Op* previous = nullptr;  // the block's previous pipelined loop
  std::set<ValueId> previous_roots;
  for (const Op& op : b.ops) {
    for (const ir::Block& r : op.regions) plan_ring_chains(r);
    if (op.kind != OpKind::For || op.pipeline_depth <= 1) continue;
    const std::set<ValueId> roots = ring_buffers(op);
    if (roots.empty()) continue;
    // Every ring of this loop is one of the previous loop's and the reverse (a buffer only one of
    // them used would see its barrier phases skip), at the same depth.
    if (previous && roots == previous_roots && previous->pipeline_depth == op.pipeline_depth) {
      const Op* head = ring_head(previous);
      ring_head_[&op] = head;
      ring_tail_[head] = &op;
      // The copies complete on the barriers of the first loop's copies into the same buffers.
      for (const Op& c : op.regions[0].ops) {
        if (!tma(c)) continue;
        for (const Op& p : head->regions[0].ops)
          if (tma(p) && root_of(p.operands[1]) == root_of(c.operands[1]))
            tma_canon_[&c] = &p;
      }
    }
    previous = &op;
    previous_roots = roots;
  }
}

// The buffers loop L's TMA copies write: its rings (a chain's, for the chain's loops).
std::set<ValueId> CudaGen::ring_buffers(const Op& L) {
  std::set<ValueId> roots;
  for (const Op& c : L.regions[0].ops)
    if (is_tma_copy(c)) roots.insert(root_of(c.operands[1]));
  return roots;
}

const Op* CudaGen::ring_head(const Op* L) const {
  auto it = ring_head_.find(L);
  return it == ring_head_.end() ? L : it->second;
}

const Op* CudaGen::ring_tail(const Op* L) const {
  auto it = ring_tail_.find(ring_head(L));
  return it == ring_tail_.end() ? ring_head(L) : it->second;
}

std::string CudaGen::tma_barrier(const Op& copy) const {
  auto it = tma_canon_.find(&copy);
  return "bar_" + var((it == tma_canon_.end() ? copy : *it->second).result);
}

bool CudaGen::owns_tma_barrier(const Op& copy) const { return !tma_canon_.count(&copy); }

}  // namespace loom::codegen::detail
