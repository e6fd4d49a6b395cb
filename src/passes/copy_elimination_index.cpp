// Copy elimination: the index of the IR (where each value is defined, the path of each op, which
// ops use each value) and the queries and small edits every rewrite shares: roots and families of
// pieces, what an op reads and writes, replacing values, turning a copy into a join. The class and
// the file of each rewrite: copy_elimination_internal.h.
#include "passes/copy_elimination_internal.h"

#include <functional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/leaf_ops.h"

namespace loom::copy_elimination_detail {

CopyEliminator::Index CopyEliminator::index() {
  Index ix;
  std::function<void(Block&, Path&)> walk = [&](Block& b, Path& p) {
    for (size_t i = 0; i < b.ops.size(); ++i) {
      Op& op = b.ops[i];
      p.push_back(static_cast<int>(i));
      ix.path[&op] = p;
      if (op.result != kNone) {
        ix.def[op.result] = &op;
        ix.where[op.result] = p;
      }
      std::set<ValueId> seen;
      for_each_operand(op, [&](ValueId& v) {
        if (seen.insert(v).second) ix.users[v].push_back(&op);
      });
      for (const EventRef& r : op.after) ++ix.event_uses[r.value];
      for (Block& r : op.regions) {
        Path q = p;
        q.push_back(-1);
        for (ValueId a : r.args) ix.where[a] = q;
        walk(r, p);
        if (r.yield.value != kNone) {
          ++ix.event_uses[r.yield.value];
          for (ValueId i : r.yield.indices)
            if (i != kNone) ix.users[i].push_back(&op);
        }
      }
      p.pop_back();
    }
  };
  Path p;
  walk(f_.body, p);
  if (f_.result.value != kNone) ++ix.event_uses[f_.result.value];
  return ix;
}

// The allocation or parameter a tensor is cut from.
ValueId CopyEliminator::root_of(const Index& ix, ValueId v) {
  for (const Op* d = find_def(ix, v); d && d->kind == OpKind::Piece; d = find_def(ix, v)) v = d->operands[0];
  return v;
}

// A tensor's root and every piece cut from it (transitively).
std::set<ValueId> CopyEliminator::family(const Index& ix, ValueId root) {
  std::set<ValueId> fam{root};
  std::vector<ValueId> work{root};
  while (!work.empty()) {
    ValueId v = work.back();
    work.pop_back();
    auto u = ix.users.find(v);
    if (u == ix.users.end()) continue;
    for (const Op* op : u->second)
      if (op->kind == OpKind::Piece && op->operands[0] == v && fam.insert(op->result).second) work.push_back(op->result);
  }
  return fam;
}

// Whether tensor `v` is (cut from) a replicated row piece: a rank-1 `mma` piece held by a WARP,
// whose rows the four lanes of a quad share (src/layout/partition.h).
bool CopyEliminator::replicated(const Index& ix, ValueId v) const {
  for (const Op* d = find_def(ix, v); d && d->kind == OpKind::Piece; d = find_def(ix, d->operands[0]))
    if (d->part.kind == ir::PartitionSpec::Kind::Mma && d->part.role == MmaRole::Acc && d->part.holder == ProcKind::Warp &&
        f_.info(d->operands[0]).rank == 1)
      return true;
  return false;
}

// Whether `op` reads / writes tensor `v` (an operand).
bool CopyEliminator::reads(const Op& op, ValueId v) {
  if (op.kind == OpKind::Copy) return op.operands[0] == v || (op.operands[1] == v && !op.name.empty());
  if (op.kind != OpKind::Call) return false;
  const LeafOp* leaf = find_leaf_op(op.name);
  for (size_t i = 0; i < op.operands.size(); ++i)
    if (op.operands[i] == v && (!leaf || i >= leaf->args.size() || leaf->args[i].access != Access::Write)) return true;
  return false;
}

bool CopyEliminator::writes(const Op& op, ValueId v) {
  if (op.kind == OpKind::Copy) return op.operands[1] == v;
  if (op.kind != OpKind::Call) return false;
  const LeafOp* leaf = find_leaf_op(op.name);
  for (size_t i = 0; i < op.operands.size(); ++i)
    if (op.operands[i] == v && (!leaf || i >= leaf->args.size() || leaf->args[i].access != Access::Read)) return true;
  return false;
}

// Replaces every use of the keys of `m` (operands, event indices) by the mapped values.
void CopyEliminator::replace_values(const std::unordered_map<ValueId, ValueId>& m) {
  if (m.empty()) return;
  auto get = [&](ValueId v) {
    for (int n = 0; n < 64; ++n) {
      auto it = m.find(v);
      if (it == m.end()) break;
      v = it->second;
    }
    return v;
  };
  std::function<void(Block&)> walk = [&](Block& b) {
    for (Op& op : b.ops) {
      for_each_operand(op, [&](ValueId& v) { v = get(v); });
      if (op.holds != kNone) op.holds = get(op.holds);
      for (Block& r : op.regions) walk(r);
    }
    for (ValueId& i : b.yield.indices)
      if (i != kNone) i = get(i);
  };
  walk(f_.body);
  for (ValueId& i : f_.result.indices)
    if (i != kNone) i = get(i);
}

// After a tensor was replaced by another: copies of a tensor onto itself go (as joins).
void CopyEliminator::drop_self_copies() {
  for_each_op(f_.body, [&](Op& op) {
    if (op.kind == OpKind::Copy && op.name.empty() && op.operands[0] == op.operands[1]) to_join(op);
  });
}

// A removed copy becomes a join over its preconditions (its event keeps its meaning).
void CopyEliminator::to_join(Op& op) {
  op.kind = OpKind::Join;
  op.operands.clear();
  op.name.clear();
}

ValueId CopyEliminator::add_event_like(ValueId like, const std::string& name) {
  ir::ValueInfo vi = f_.info(like);
  vi.name = name;
  return f_.add_value(vi);
}

bool CopyEliminator::same_type(ValueId a, ValueId b) const {
  const ir::ValueInfo &x = f_.info(a), &y = f_.info(b);
  return x.type == y.type && x.dtype == y.dtype && x.mem == y.mem && x.rank == y.rank;
}

bool CopyEliminator::same_type_but_mem(ValueId a, ValueId b) const {
  return f_.info(a).dtype == f_.info(b).dtype && f_.info(a).rank == f_.info(b).rank;
}

bool CopyEliminator::same_shape(ValueId a, ValueId b) const {
  return f_.info(a).dtype == f_.info(b).dtype && f_.info(a).rank == f_.info(b).rank;
}

void CopyEliminator::for_each_op_in(const Op& op, const std::function<void(const Op&)>& fn) {
  fn(op);
  for (const Block& r : op.regions)
    for (const Op& o : r.ops) for_each_op_in(o, fn);
}

// A reference to event `e` from the op at `at`: each processor dimension indexed by a
// proc_index of that kind visible at `at` (point-wise), or `:` when none is.
EventRef CopyEliminator::ref_at(const Index& ix, ValueId e, const Path& at) {
  EventRef r{e, {}};
  const ir::ValueInfo& vi = f_.info(e);
  if (vi.type != Type::Events) return r;
  for (ProcKind k : vi.event_dims) {
    ValueId found = kNone;
    for (auto& [v, op] : ix.def)
      if (op->kind == OpKind::ProcIndex && op->proc == k && dominates(ix.where.at(v), at)) {
        found = v;
        break;
      }
    r.indices.push_back(found);
  }
  return r;
}

// A reference to all of event (array) `e`: `%e`, or `%E[:, ...]`.
EventRef CopyEliminator::full_ref(ValueId e) const {
  const ir::ValueInfo& vi = f_.info(e);
  return EventRef{e, std::vector<ValueId>(vi.type == Type::Events ? vi.event_dims.size() : 0, kNone)};
}

int CopyEliminator::position_in(const Block& b, const Op* op) {
  for (size_t i = 0; i < b.ops.size(); ++i)
    if (&b.ops[i] == op) return static_cast<int>(i);
  return -1;
}

// The block holding the op at `p`.
Block* CopyEliminator::block_at(const Path& p) {
  Block* b = &f_.body;
  for (size_t i = 0; i + 1 < p.size(); ++i) b = &b->ops[static_cast<size_t>(p[i])].regions.at(0);
  return b;
}

}  // namespace loom::copy_elimination_detail
