// Copy elimination, rewrites 5, 6 and 7 (copy_elimination.h): cleanup — copies into allocations
// nothing reads (dead copies), references to joins replaced by the joins' preconditions (join
// forwarding), unused immediate ops, allocations and joins (dead code).
#include "passes/copy_elimination_internal.h"

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>
#include <vector>

namespace loom::copy_elimination_detail {

// 5. dead copies: writes into a local allocation that nothing reads.
bool CopyEliminator::dead_copies() {
  Index ix = index();
  bool changed = false;
  std::vector<Op*> allocs;
  for_each_op(f_.body, [&](Op& op) {
    if (op.kind == OpKind::Alloc) allocs.push_back(&op);
  });
  for (Op* al : allocs) {
    std::set<ValueId> fam = family(ix, al->result);
    bool read = false;
    std::vector<Op*> copies_in;
    for (ValueId v : fam) {
      auto u = ix.users.find(v);
      if (u == ix.users.end()) continue;
      for (Op* op : u->second) {
        if (reads(*op, v)) read = true;
        if (op->kind == OpKind::Copy && op->operands[1] == v) copies_in.push_back(op);
      }
    }
    if (!read) {
      for (Op* c : copies_in) {
        to_join(*c);
        changed = true;
      }
      continue;
    }
    // Copies out of the allocation before anything wrote it copy undefined data: they go (their
    // destination stays as undefined as it was, a fresh buffer).
    for (ValueId v : fam) {
      auto u = ix.users.find(v);
      if (u == ix.users.end()) continue;
      for (Op* op : u->second)
        if (op->kind == OpKind::Copy && op->name.empty() && op->operands[0] == v && !written_before(ix, fam, *op)) {
          to_join(*op);
          changed = true;
        }
    }
    if (changed) return true;  // the index is stale
  }
  return changed;
}

// Whether any op may write a tensor of `fam` before `op` runs: before it in program order, or
// anywhere in a `for` loop that also holds `op` (an earlier iteration).
bool CopyEliminator::written_before(const Index& ix, const std::set<ValueId>& fam, const Op& op) {
  const Path& c = ix.path.at(&op);
  for (ValueId v : fam) {
    auto u = ix.users.find(v);
    if (u == ix.users.end()) continue;
    for (const Op* w : u->second) {
      if (w == &op || !writes(*w, v)) continue;
      const Path& wp = ix.path.at(w);
      if (wp < c) return true;
      size_t d = 0;
      while (d < c.size() && d < wp.size() && c[d] == wp[d]) ++d;
      for (size_t k = 0; k < d; ++k) {
        Path pre(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(k) + 1);
        if (block_at(pre)->ops[static_cast<size_t>(pre.back())].kind == OpKind::For) return true;
      }
    }
  }
  return false;
}

// 6. join forwarding.
bool CopyEliminator::forward_joins() {
  Index ix = index();
  // Processor kind of each proc_index value.
  std::unordered_map<ValueId, ProcKind> proc_of;
  for (auto& [v, op] : ix.def)
    if (op->kind == OpKind::ProcIndex) proc_of[v] = op->proc;
  bool changed = false;
  auto expand = [&](const EventRef& r, std::vector<EventRef>& out) -> bool {
    const Op* j = find_def(ix, r.value);
    if (!j || j->kind != OpKind::Join) return false;
    const ir::ValueInfo& vi = f_.info(r.value);
    std::vector<ProcKind> dims = vi.type == Type::Events ? vi.event_dims : std::vector<ProcKind>{};
    if (dims.size() != r.indices.size()) return false;
    for (const EventRef& a : j->after) {
      EventRef b = a;
      for (ValueId& i : b.indices) {
        if (i == kNone) continue;
        auto pk = proc_of.find(i);
        if (pk == proc_of.end()) continue;
        auto at = std::find(dims.begin(), dims.end(), pk->second);
        if (at != dims.end()) i = r.indices[static_cast<size_t>(at - dims.begin())];
      }
      out.push_back(b);
    }
    return true;
  };
  std::function<void(Block&)> walk = [&](Block& b) {
    for (Op& op : b.ops) {
      if (!op.after.empty()) {
        std::vector<EventRef> work(op.after.rbegin(), op.after.rend()), next;
        bool any = false;
        int budget = 10000;
        while (!work.empty() && budget-- > 0) {
          EventRef r = work.back();
          work.pop_back();
          std::vector<EventRef> exp;
          if (r.value != op.result && expand(r, exp)) {
            any = true;
            for (auto it = exp.rbegin(); it != exp.rend(); ++it) work.push_back(*it);
          } else if (std::find(next.begin(), next.end(), r) == next.end()) {
            next.push_back(r);
          }
        }
        if (any && work.empty()) {
          op.after = std::move(next);
          changed = true;
        }
      }
      for (Block& r : op.regions) walk(r);
    }
  };
  walk(f_.body);
  return changed;
}

// 7. dead code: unused immediate ops, allocations and joins.
bool CopyEliminator::dead_code() {
  bool changed = false;
  for (bool again = true; again;) {
    again = false;
    Index ix = index();
    std::function<void(Block&)> walk = [&](Block& b) {
      for (size_t i = 0; i < b.ops.size();) {
        Op& op = b.ops[i];
        for (Block& r : op.regions) walk(r);
        bool removable = (immediate(op.kind) || op.kind == OpKind::Alloc || op.kind == OpKind::Join) && op.result != kNone;
        if (removable) {
          auto u = ix.users.find(op.result);
          bool used = u != ix.users.end() && !u->second.empty();
          auto e = ix.event_uses.find(op.result);
          used = used || (e != ix.event_uses.end() && e->second > 0);
          if (!used) {
            b.ops.erase(b.ops.begin() + static_cast<std::ptrdiff_t>(i));
            again = changed = true;
            continue;
          }
        }
        ++i;
      }
    };
    walk(f_.body);
  }
  return changed;
}

}  // namespace loom::copy_elimination_detail
