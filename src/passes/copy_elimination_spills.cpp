// Copy elimination, rewrites 2, 2b and 3 (numbered as in copy_elimination.h; 2b is described only
// here): spills — data copied out to another memory and back is kept where it was (spill
// elimination), a copy whose data is overwritten before anyone reads it goes (overwritten copies),
// and a loop body's copy-in / copy-out pair of a loop-invariant tensor moves around the loop (spill
// hoisting).
#include "passes/copy_elimination_internal.h"

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

namespace loom::copy_elimination_detail {

// 2. spill elimination: copy X1 -> P; ...; copy P -> X2  ==>  X2 := X1.
bool CopyEliminator::spill_eliminate() {
  Index ix = index();
  bool changed = false;
  std::function<bool(Block&)> walk = [&](Block& b) -> bool {
    for (size_t i = 0; i < b.ops.size(); ++i) {
      Op& e1 = b.ops[i];
      if (e1.kind != OpKind::Copy || !e1.name.empty()) continue;
      ValueId x1 = e1.operands[0], p = e1.operands[1];
      std::set<ValueId> pfam = family(ix, root_of(ix, p));
      std::set<ValueId> x1fam = family(ix, root_of(ix, x1));
      for (size_t j = i + 1; j < b.ops.size(); ++j) {
        Op& e2 = b.ops[j];
        std::vector<const Op*> readers;
        if (e2.kind == OpKind::Copy && e2.name.empty() && e2.operands[0] == p && candidate_spill(ix, b, i, j, readers)) {
          ValueId x2 = e2.operands[1];
          std::vector<EventRef> extra;
          for (const Op* r : readers) extra.push_back(ref_at(ix, r->result, ix.path.at(&e2)));
          replace_values({{x2, x1}});
          to_join(b.ops[j]);
          for (EventRef& r : extra)
            if (std::find(b.ops[j].after.begin(), b.ops[j].after.end(), r) == b.ops[j].after.end()) b.ops[j].after.push_back(r);
          return true;
        }
        // Stop at anything else that touches P's root (it may change P between the copies).
        bool touches = false;
        for_each_op_in(e2, [&](const Op& o) {
          for (ValueId v : o.operands)
            if (pfam.count(v) && o.kind != OpKind::Piece && o.kind != OpKind::Dim) touches = true;
        });
        if (touches) break;
      }
      (void)x1fam;
    }
    for (Op& op : b.ops)
      for (Block& r : op.regions)
        if (walk(r)) return true;
    return false;
  };
  while (walk(f_.body)) {
    changed = true;
    ix = index();
  }
  return changed;
}

// b.ops[i] = copy X1 -> P, b.ops[j] = copy P -> X2: may X2 become X1? Fills `readers` with the
// ops that read X1 between the two copies.
bool CopyEliminator::candidate_spill(const Index& ix, const Block& b, size_t i, size_t j, std::vector<const Op*>& readers) {
  const Op &e1 = b.ops[i], &e2 = b.ops[j];
  ValueId x1 = e1.operands[0], x2 = e2.operands[1];
  // Only across memories (a spill): within one memory, coalescing does better.
  if (x1 == x2 || !same_type(x1, x2) || f_.info(x1).mem == f_.info(e1.operands[1]).mem) return false;
  const Path& p2 = ix.path.at(&e2);
  if (f_.info(e1.result).type != f_.info(e2.result).type || f_.info(e1.result).event_dims != f_.info(e2.result).event_dims)
    return false;
  const Op* a2 = find_def(ix, x2);
  if (!a2 || a2->kind != OpKind::Alloc) return false;
  // X2: a fresh buffer not written before e2 (its later writes then go to X1, which is why...).
  for (ValueId v : family(ix, x2)) {
    auto u = ix.users.find(v);
    if (u == ix.users.end()) continue;
    for (const Op* op : u->second)
      if (op != &e2 && writes(*op, v) && ix.path.at(op) < p2) return false;
  }
  // ... X1 must not be written after e1, nor read after e2 (in program order, anywhere in the
  // function): X2's uses become X1's. Reads of X1 between e1 and e2 are fine once X2's writes
  // wait for them: they are returned in `readers`.
  const Path& p1 = ix.path.at(&e1);
  readers.clear();
  for (ValueId v : family(ix, root_of(ix, x1))) {
    auto u = ix.users.find(v);
    if (u == ix.users.end()) continue;
    for (const Op* op : u->second) {
      if (op == &e1 || ix.path.at(op) < p1) continue;
      if (writes(*op, v) || (reads(*op, v) && !(ix.path.at(op) < p2))) return false;
      if (reads(*op, v)) readers.push_back(op);
    }
  }
  // X1 must be visible wherever X2 is used.
  auto wx1 = ix.where.find(x1);
  Path d1 = wx1 == ix.where.end() ? Path{} : wx1->second;
  for (ValueId v : family(ix, x2)) {
    auto u = ix.users.find(v);
    if (u == ix.users.end()) continue;
    for (const Op* op : u->second)
      if (!dominates(d1, ix.path.at(op))) return false;
  }
  return true;
}

// 2b. overwritten copies: copy X -> P; ...; copy Y -> P with no read of P's root in between:
//     the first copy's data is never seen.
bool CopyEliminator::overwritten_copies() {
  Index ix = index();
  bool changed = false;
  std::function<void(Block&)> walk = [&](Block& b) {
    for (size_t i = 0; i < b.ops.size(); ++i) {
      Op& e1 = b.ops[i];
      for (Block& r : e1.regions) walk(r);
      if (e1.kind != OpKind::Copy || !e1.name.empty()) continue;
      ValueId p = e1.operands[1];
      std::set<ValueId> pfam = family(ix, root_of(ix, p));
      for (size_t j = i + 1; j < b.ops.size(); ++j) {
        const Op& e3 = b.ops[j];
        if (e3.kind == OpKind::Copy && e3.name.empty() && e3.operands[1] == p && !pfam.count(e3.operands[0]) &&
            f_.info(e3.result).event_dims == f_.info(e1.result).event_dims && f_.info(e3.result).type == f_.info(e1.result).type) {
          to_join(e1);
          changed = true;
          break;
        }
        bool read = false;
        for_each_op_in(e3, [&](const Op& o) {
          for (ValueId v : o.operands)
            if (pfam.count(v) && reads(o, v)) read = true;
        });
        if (read) break;
      }
    }
  };
  walk(f_.body);
  return changed;
}

// 3. spill hoisting: in a for body, X = alloc; copy P -> X; ...; copy X -> P  ==>  around the loop.
bool CopyEliminator::spill_hoist() {
  bool changed = false;
  for (bool again = true; again;) {
    again = false;
    Index ix = index();
    std::function<bool(Block&)> walk = [&](Block& b) -> bool {
      for (size_t i = 0; i < b.ops.size(); ++i) {
        Op& loop = b.ops[i];
        for (Block& r : loop.regions)
          if (walk(r)) return true;
        if (loop.kind != OpKind::For || f_.info(loop.result).type != Type::Event) continue;
        if (hoist_one(ix, b, i)) return true;
      }
      return false;
    };
    if (walk(f_.body)) {
      again = true;
      changed = true;
    }
  }
  return changed;
}

bool CopyEliminator::hoist_one(const Index& ix, Block& parent, size_t li) {
  Op& loop = parent.ops[li];
  Block& body = loop.regions[0];
  const Path& lp = ix.path.at(&loop);
  for (size_t a = 0; a < body.ops.size(); ++a) {
    const Op& alloc = body.ops[a];
    if (alloc.kind != OpKind::Alloc) continue;
    ValueId x = alloc.result;
    bool inv = true;
    for (ValueId v : alloc.operands) inv = inv && dominates(ix.where.count(v) ? ix.where.at(v) : Path{}, lp);
    if (!inv) continue;
    // The copies of X itself: exactly one in (from P) and one out (to the same P), directly in
    // the body; X may be used otherwise (its pieces copied, reduced into, read by calls).
    int in = -1, out = -1;
    bool ok = true;
    auto ux = ix.users.find(x);
    if (ux == ix.users.end()) continue;
    for (const Op* op : ux->second) {
      if (op->kind != OpKind::Copy) continue;
      if (!op->name.empty() && op->operands[1] == x) ok = false;  // X is reduced into whole
      if (!op->name.empty()) continue;
      int pos = position_in(body, op);
      if (op->operands[1] == x) {
        if (in >= 0 || pos < 0) ok = false;
        in = pos;
      }
    }
    if (!ok || in < 0) continue;
    ValueId pin = body.ops[static_cast<size_t>(in)].operands[0];
    for (const Op* op : ux->second) {
      if (op->kind != OpKind::Copy || !op->name.empty() || op->operands[0] != x || op->operands[1] != pin) continue;
      int pos = position_in(body, op);
      if (out >= 0 || pos < 0) ok = false;
      out = pos;
    }
    if (!ok || out < 0 || out < in) continue;
    const Op &cin = body.ops[static_cast<size_t>(in)], &cout = body.ops[static_cast<size_t>(out)];
    ValueId p = cin.operands[0];
    if (cout.operands[1] != p) continue;
    if (!dominates(ix.where.count(p) ? ix.where.at(p) : Path{}, lp)) continue;
    if (f_.info(cin.result).type != f_.info(cout.result).type) continue;
    // Nothing else in the loop touches P's root.
    std::set<ValueId> pfam = family(ix, root_of(ix, p));
    bool clash = false;
    for_each_op_in(loop, [&](const Op& o) {
      if (&o == &cin || &o == &cout || o.kind == OpKind::Piece || o.kind == OpKind::Dim) return;
      for (ValueId v : o.operands)
        if (pfam.count(v)) clash = true;
    });
    if (clash) continue;

    // Rewrite. Preconditions of the new copy-in: the loop's (it used to run inside the loop).
    Op nalloc = body.ops[static_cast<size_t>(a)];
    Op nin;
    nin.kind = OpKind::Copy;
    nin.result = add_event_like(cin.result, f_.info(cin.result).name);
    nin.operands = {p, x};
    nin.after = loop.after;
    nin.loc = cin.loc;
    nin.origin = cin.origin + " [hoisted before the loop]";
    Op nout;
    nout.kind = OpKind::Copy;
    nout.result = add_event_like(cout.result, f_.info(cout.result).name);
    nout.operands = {x, p};
    nout.after = {EventRef{loop.result, {}}};
    nout.loc = cout.loc;
    nout.origin = cout.origin + " [hoisted after the loop]";
    EventRef in_all{nin.result, std::vector<ValueId>(f_.info(nin.result).event_dims.size(), kNone)};
    EventRef out_all{nout.result, std::vector<ValueId>(f_.info(nout.result).event_dims.size(), kNone)};
    const ValueId loop_ev = loop.result;
    to_join(body.ops[static_cast<size_t>(in)]);
    to_join(body.ops[static_cast<size_t>(out)]);
    body.ops.erase(body.ops.begin() + static_cast<std::ptrdiff_t>(a));
    loop.after.push_back(in_all);
    // Later consumers of the loop's event wait for the copy-out (which waits for the loop).
    auto redirect = [&](EventRef& r) {
      if (r.value == loop_ev && r.indices.empty()) r = out_all;
    };
    for_each_ref(f_.body, redirect);
    redirect(f_.result);
    nout.after = {EventRef{loop_ev, {}}};
    parent.ops.insert(parent.ops.begin() + static_cast<std::ptrdiff_t>(li) + 1, std::move(nout));
    parent.ops.insert(parent.ops.begin() + static_cast<std::ptrdiff_t>(li), std::move(nin));
    parent.ops.insert(parent.ops.begin() + static_cast<std::ptrdiff_t>(li), std::move(nalloc));
    return true;
  }
  return false;
}

}  // namespace loom::copy_elimination_detail
