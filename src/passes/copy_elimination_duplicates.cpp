// Copy elimination, rewrites 4e and 4f (copy_elimination.h): the same data copied again — by every
// iteration of a loop (loop-invariant copies move before the loop) or twice in one block into two
// alike allocations (duplicate copies share the first one's buffer).
#include "passes/copy_elimination_internal.h"

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

namespace loom::copy_elimination_detail {

// 4e. loop-invariant copies: in a `for` body, copy S -> X into an allocation X of the body, S
//     defined before the loop and its root written nowhere in the loop, X written by nothing else,
//     the copy waiting for nothing the loop defines: every iteration copies the same data. X and
//     the copy move before the loop (the copy after the loop's preconditions), and the loop waits
//     for the copy — the reads of X in the body, and through the loop's event every later writer
//     of S. (FA3: the Q tile, copied again for every K/V tile.)
//       for %j ... after [%a] { %X = alloc SHARED [%m]; %e = copy %Q -> %X after []; ...uses }
//       ==>  %X = alloc SHARED [%m]; %e = copy %Q -> %X after [%a]
//            for %j ... after [%a, %e] { ...uses }
bool CopyEliminator::hoist_invariant_copies() {
  Index ix = index();
  std::function<bool(Block&)> walk = [&](Block& b) -> bool {
    for (size_t i = 0; i < b.ops.size(); ++i) {
      for (Block& r : b.ops[i].regions)
        if (walk(r)) return true;
      if (b.ops[i].kind == OpKind::For && f_.info(b.ops[i].result).type == Type::Event && hoist_one_copy(ix, b, i))
        return true;
    }
    return false;
  };
  bool changed = false;
  while (walk(f_.body)) {
    changed = true;
    ix = index();
  }
  return changed;
}

bool CopyEliminator::hoist_one_copy(const Index& ix, Block& parent, size_t li) {
  Op& loop = parent.ops[li];
  Block& body = loop.regions[0];
  const Path& lp = ix.path.at(&loop);
  auto outside = [&](ValueId v) { return dominates(ix.where.count(v) ? ix.where.at(v) : Path{}, lp); };
  for (size_t ci = 0; ci < body.ops.size(); ++ci) {
    const Op& cp = body.ops[ci];
    if (cp.kind != OpKind::Copy || !cp.name.empty()) continue;
    ValueId s = cp.operands[0], x = cp.operands[1];
    int ai = position_in(body, find_def(ix, x));
    if (ai < 0 || body.ops[static_cast<size_t>(ai)].kind != OpKind::Alloc) continue;
    const Op& alloc = body.ops[static_cast<size_t>(ai)];
    if (alloc.distinct || alloc.mem == MemKind::None || f_.info(s).mem == MemKind::None || !outside(s)) continue;
    bool ok = std::all_of(alloc.operands.begin(), alloc.operands.end(), outside);
    for (const EventRef& r : cp.after) {
      ok = ok && outside(r.value);
      for (ValueId i : r.indices) ok = ok && (i == kNone || outside(i));
    }
    if (!ok || !only_writer(ix, x, cp) || written_in(family(ix, root_of(ix, s)), loop)) continue;

    Op nalloc = alloc;
    Op ncopy = cp;
    ncopy.origin += " [hoisted before the loop]";
    for (const EventRef& r : loop.after)
      if (std::find(ncopy.after.begin(), ncopy.after.end(), r) == ncopy.after.end()) ncopy.after.push_back(r);
    loop.after.push_back(full_ref(ncopy.result));
    body.ops.erase(body.ops.begin() + static_cast<std::ptrdiff_t>(std::max<size_t>(ci, static_cast<size_t>(ai))));
    body.ops.erase(body.ops.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(ci, static_cast<size_t>(ai))));
    parent.ops.insert(parent.ops.begin() + static_cast<std::ptrdiff_t>(li), std::move(ncopy));
    parent.ops.insert(parent.ops.begin() + static_cast<std::ptrdiff_t>(li), std::move(nalloc));
    return true;
  }
  return false;
}

// 4f. duplicate copies: copy S -> X1; ...; copy S -> X2 in one block, X1 and X2 allocations alike
//     (memory, element type, extents, layout), each written only by its copy, S's root not written
//     between the copies: X2 := X1, and the second copy becomes a join that also waits for the
//     first (readers of X2 now wait for the data to arrive in X1). (Dual GEMM: both products'
//     tiles of A.)
//       %e1 = copy %Ap -> %A1 after [%p]; %e2 = copy %Ap -> %A2 after [%q]; ... %A2 ... [%e2] ...
//       ==>  %e1 = copy %Ap -> %A1 after [%p]; %e2 = join after [%q, %e1]; ... %A1 ... [%e2] ...
bool CopyEliminator::merge_duplicate_copies() {
  Index ix = index();
  std::function<bool(Block&)> walk = [&](Block& b) -> bool {
    for (size_t i = 0; i < b.ops.size(); ++i) {
      for (Block& r : b.ops[i].regions)
        if (walk(r)) return true;
      if (b.ops[i].kind != OpKind::Copy || !b.ops[i].name.empty()) continue;
      std::set<ValueId> sfam = family(ix, root_of(ix, b.ops[i].operands[0]));
      for (size_t j = i + 1; j < b.ops.size(); ++j) {
        if (duplicate_copies(ix, b, i, j)) {
          ValueId x1 = b.ops[i].operands[1], x2 = b.ops[j].operands[1];
          // Copies run by the same processors: each instance of the join waits for its own
          // processor's first copy (each wrote all of its destination).
          const ir::ValueInfo &v1 = f_.info(b.ops[i].result), &v2 = f_.info(b.ops[j].result);
          EventRef first = v1.type == v2.type && v1.event_dims == v2.event_dims
                               ? ref_at(ix, b.ops[i].result, ix.path.at(&b.ops[j]))
                               : full_ref(b.ops[i].result);
          replace_values({{x2, x1}});
          to_join(b.ops[j]);
          b.ops[j].after.push_back(first);
          return true;
        }
        if (written_in(sfam, b.ops[j])) break;  // S may hold other data from here on
      }
    }
    return false;
  };
  bool changed = false;
  while (walk(f_.body)) {
    changed = true;
    ix = index();
  }
  return changed;
}

// b.ops[i] = copy S -> X1, b.ops[j] = copy S -> X2 (no write to S in between, checked by the
// caller): may X2 become X1?
bool CopyEliminator::duplicate_copies(const Index& ix, const Block& b, size_t i, size_t j) {
  const Op &e1 = b.ops[i], &e2 = b.ops[j];
  if (e1.kind != OpKind::Copy || e2.kind != OpKind::Copy || !e1.name.empty() || !e2.name.empty()) return false;
  if (e1.operands[0] != e2.operands[0] || e1.operands[1] == e2.operands[1]) return false;
  const Op* a1 = find_def(ix, e1.operands[1]);
  const Op* a2 = find_def(ix, e2.operands[1]);
  if (!a1 || !a2 || a1->kind != OpKind::Alloc || a2->kind != OpKind::Alloc || a1->distinct || a2->distinct) return false;
  if (a1->mem == MemKind::None || a1->mem != a2->mem || a1->dtype != a2->dtype || a1->operands != a2->operands ||
      a1->layout != a2->layout)
    return false;
  if (!only_writer(ix, e1.operands[1], e1) || !only_writer(ix, e2.operands[1], e2)) return false;
  // X1 must be visible wherever X2 is used.
  const Path& d1 = ix.where.at(e1.operands[1]);
  for (ValueId v : family(ix, e2.operands[1])) {
    auto u = ix.users.find(v);
    if (u == ix.users.end()) continue;
    for (const Op* op : u->second)
      if (!dominates(d1, ix.path.at(op))) return false;
  }
  return true;
}

// Whether `op` is the only op that writes tensor `x` or a piece of it.
bool CopyEliminator::only_writer(const Index& ix, ValueId x, const Op& op) {
  for (ValueId v : family(ix, x)) {
    auto u = ix.users.find(v);
    if (u == ix.users.end()) continue;
    for (const Op* w : u->second)
      if (w != &op && writes(*w, v)) return false;
  }
  return true;
}

// Whether `scope` or an op inside it writes a tensor of `fam`.
bool CopyEliminator::written_in(const std::set<ValueId>& fam, const Op& scope) {
  bool written = false;
  for_each_op_in(scope, [&](const Op& o) {
    for (ValueId v : o.operands)
      if (fam.count(v) && writes(o, v)) written = true;
  });
  return written;
}

}  // namespace loom::copy_elimination_detail
