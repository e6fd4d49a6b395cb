// Register residents: see register_residents.h.
#include "passes/register_residents.h"

#include <vector>

namespace loom {
namespace {

using ir::Block;
using ir::Op;
using ir::OpKind;
using ir::PartitionSpec;
using ir::ValueId;
using Uses = std::map<ValueId, std::vector<std::pair<const Op*, size_t>>>;

// Every (op, operand index) use of each value in block b and below, and the allocs.
void collect(const Block& b, Uses& uses, std::vector<const Op*>& allocs, std::map<ValueId, const Op*>& def) {
  for (const Op& op : b.ops) {
    for (size_t i = 0; i < op.operands.size(); ++i) uses[op.operands[i]].push_back({&op, i});
    if (op.result != ir::kNone) def[op.result] = &op;
    if (op.kind == OpKind::Alloc) allocs.push_back(&op);
    for (const Block& r : op.regions) collect(r, uses, allocs, def);
  }
}

bool is_mma_piece(const Op& op, MmaRole role, ProcKind holder) {
  return op.kind == OpKind::Piece && op.part.kind == PartitionSpec::Kind::Mma && op.part.role == role &&
         op.part.holder == holder;
}

}  // namespace

RegisterResidents find_register_residents(const ir::Function& f, const ir::Block* scope) {
  Uses uses;
  std::vector<const Op*> allocs;
  std::map<ValueId, const Op*> def;
  collect(scope ? *scope : f.body, uses, allocs, def);
  RegisterResidents out;

  // Row vectors: candidates, then those whose copy partners are all candidates (a fixed point).
  std::set<ValueId> cand;
  std::map<ValueId, std::vector<ValueId>> partners;
  for (const Op* a : allocs) {
    if (a->mem != MemKind::Shared || f.info(a->result).rank != 1) continue;
    bool ok = true;
    for (auto& [u, i] : uses[a->result]) {
      if (u->kind == OpKind::Dim) continue;
      if (is_mma_piece(*u, MmaRole::Acc, ProcKind::Warp) && i == 0) {
        for (auto& [w, j] : uses[u->result])
          if (w->kind != OpKind::Dim && w->kind != OpKind::Copy && w->kind != OpKind::Call) ok = false;
        continue;
      }
      if (u->kind == OpKind::Copy && u->name.empty() && u->operands.size() == 2) {
        partners[a->result].push_back(u->operands[1 - i]);
        continue;
      }
      ok = false;
    }
    if (ok) cand.insert(a->result);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = cand.begin(); it != cand.end();) {
      bool ok = true;
      for (ValueId p : partners[*it])
        if (!cand.count(p)) ok = false;
      if (ok) {
        ++it;
      } else {
        it = cand.erase(it);
        changed = true;
      }
    }
  }
  out.row_vectors = cand;

  // Forwarded A operands: one writer (a copy from a thread's 16-bit accumulator fragment into the
  // tile's lane piece) and only wgmma A readers of that warpgroup tile.
  for (const Op* a : allocs) {
    if (a->mem != MemKind::Shared || f.info(a->result).rank != 2) continue;
    const DType dt = f.info(a->result).dtype;
    if (dt != DType::BF16 && dt != DType::F16) continue;
    std::vector<const Op*> writers, readers;
    bool ok = true;
    std::vector<ValueId> work{a->result};  // the alloc and every piece of it
    while (!work.empty() && ok) {
      ValueId v = work.back();
      work.pop_back();
      for (auto& [u, i] : uses[v]) {
        if (u->kind == OpKind::Dim) continue;
        if (u->kind == OpKind::Piece && i == 0) {
          work.push_back(u->result);
          continue;
        }
        if (u->kind == OpKind::Copy && u->name.empty() && i == 1) writers.push_back(u);
        else if (u->kind == OpKind::Call && u->name == "mma" && i == 1) readers.push_back(u);
        else ok = false;
      }
    }
    if (!ok || writers.size() != 1 || readers.empty()) continue;
    // The warpgroup tile of a lane's piece (Piece mma WARP of Piece mma WARPGROUP), or kNone.
    auto wg_tile = [&](ValueId lane_piece, MmaRole role) -> ValueId {
      auto d = def.find(lane_piece);
      if (d == def.end() || !is_mma_piece(*d->second, role, ProcKind::Warp)) return ir::kNone;
      auto w = def.find(d->second->operands[0]);
      if (w == def.end() || !is_mma_piece(*w->second, role, ProcKind::Warpgroup)) return ir::kNone;
      return w->second->operands[0];
    };
    const Op* wr = writers[0];
    const ValueId src = wr->operands[0];
    auto sd = def.find(src);
    if (sd == def.end() || sd->second->kind != OpKind::Alloc || sd->second->mem != MemKind::Register ||
        f.info(src).dtype != dt)
      continue;
    const ValueId tile = wg_tile(wr->operands[1], MmaRole::Acc);
    if (tile == ir::kNone) continue;
    for (const Op* r : readers)
      if (wg_tile(r->operands[1], MmaRole::Lhs) != tile) ok = false;
    if (ok) out.forwarded[a->result] = src;
  }
  return out;
}

}  // namespace loom
