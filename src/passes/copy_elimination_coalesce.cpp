// Copy elimination, rewrites 4 and 4g (copy_elimination.h): coalescing — a callee's fresh
// allocation is replaced by the caller's tensor it is copied from or to (self and duplicate copies
// collapse), and a reduction instance by the tensor it is folded into (reduction forwarding).
#include "passes/copy_elimination_internal.h"

#include <algorithm>
#include <limits>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace loom::copy_elimination_detail {

// 4. coalescing: X = alloc, copied in from S and/or out to S in X's memory  ==>  X := S.
bool CopyEliminator::coalesce() {
  Index ix = index();
  std::unordered_map<ValueId, ValueId> repl;
  std::unordered_set<ValueId> involved;
  std::vector<Op*> allocs;
  for_each_op(f_.body, [&](Op& op) {
    if (op.kind == OpKind::Alloc) allocs.push_back(&op);
  });
  for (Op* al : allocs) {
    ValueId x = al->result;
    if (involved.count(x) || al->distinct) continue;
    // ins: copies into X (whole); outs: copies out of X (whole); written: X's elements are
    // written by anything but the copy-in.
    std::vector<const Op*> ins, outs;
    bool ok = true, written = false;
    for (ValueId v : family(ix, x)) {
      auto u = ix.users.find(v);
      if (u == ix.users.end()) continue;
      for (const Op* op : u->second) {
        if (op->kind == OpKind::Copy && !op->name.empty() && (op->operands[0] == v || op->operands[1] == v))
          ok = false;  // a reducing copy: X is a reduction instance
        else if (op->kind == OpKind::Copy && v == x && op->operands[1] == x) ins.push_back(op);
        else if (op->kind == OpKind::Copy && v == x && op->operands[0] == x) outs.push_back(op);
        else if (writes(*op, v)) written = true;
      }
    }
    if (!ok || ins.size() > 1) continue;
    // S: the copy-in's source; without one, the target of X's only copy-out (a `w` argument).
    ValueId s = kNone;
    if (!ins.empty()) s = ins[0]->operands[0];
    else if (outs.size() == 1) s = outs[0]->operands[1];
    if (s == kNone) continue;
    // X's writes must be meant for S: written X needs exactly one copy back to S.
    int back = 0;
    for (const Op* o : outs) back += o->operands[1] == s ? 1 : 0;
    if (back > 1 || (written && back != 1)) continue;
    // X in S's memory; or X without one (NONE) that is only read, S in a memory every processor
    // of the block reads (the callee reads the caller's tensor in place).
    MemKind sm = f_.info(s).mem;
    bool read_in_place = al->mem == MemKind::None && !written && outs.empty() &&
                         (sm == MemKind::Shared || sm == MemKind::Global) && same_type_but_mem(s, x);
    if (s == x || !is_tensor(s) || (!same_type(s, x) && !read_in_place) || involved.count(s)) continue;
    // The lanes of a quad share a replicated row piece: each lane's private copy it updates in
    // place (l = l * a) must stay private, or the update is applied once per lane. One that is
    // only overwritten (no copy-in, no op reading what it writes) may be written in place: the
    // lanes write equal values (docs/language.md section 4).
    if ((written || !outs.empty()) && replicated(ix, s) && !(ins.empty() && only_overwritten(ix, x))) continue;
    auto ws = ix.where.find(s);
    if (ws != ix.where.end() && !dominates(ws->second, ix.path.at(al))) continue;
    repl[x] = s;
    involved.insert(x);
    involved.insert(s);
  }
  if (repl.empty()) return false;
  replace_values(repl);
  drop_self_copies();
  return true;
}

// Whether no op both reads and writes (an element of) tensor `x` or a piece of it.
bool CopyEliminator::only_overwritten(const Index& ix, ValueId x) {
  for (ValueId v : family(ix, x)) {
    auto u = ix.users.find(v);
    if (u == ix.users.end()) continue;
    for (const Op* w : u->second)
      if (writes(*w, v) && (reads(*w, v) || (w->kind == OpKind::Copy && !w->name.empty()))) return false;
  }
  return true;
}

// 4g. reduction forwarding: a reduction instance X (the fresh allocation of a red(op) argument)
//     filled with the reduction's identity, then only reduced into (copy.op from its callees,
//     into X or pieces of it), then folded whole into the caller's tensor S (copy.op X -> S):
//     S op (id op Y1 op Y2 ...) = S op Y1 op Y2 ..., so the callees reduce into S directly. X is
//     NONE or in S's memory. The fill and the fold become joins; each reduction into X also waits
//     for what the fold waited for besides X's own reductions (the caller's last write and reads
//     of S's root, dependence analysis step (4)), and everything after the fold still waits for
//     all of them through the fold's join. (GEMM + row sums: the lanes reduce straight into the
//     row sums, no per-warpgroup or per-warp instance.)
//       %f = call fill(%X, 0) after [%a]             %f = join after [%a]
//       %r = copy.sum %Y -> %Xp after [%b]     ==>   %r = copy.sum %Y -> %Sp after [%b, %p]
//       %o = copy.sum %X -> %S after [%r, %p]        %o = join after [%r, %p]
bool CopyEliminator::forward_reductions() {
  Index ix = index();
  std::vector<Op*> allocs;
  for_each_op(f_.body, [&](Op& op) {
    if (op.kind == OpKind::Alloc && !op.distinct) allocs.push_back(&op);
  });
  for (Op* xa : allocs) {
    ValueId x = xa->result;
    std::set<ValueId> fam = family(ix, x);
    Op* fill = nullptr;
    Op* fold = nullptr;
    std::vector<Op*> reducers;
    bool ok = true;
    for (ValueId v : fam) {
      auto u = ix.users.find(v);
      if (u == ix.users.end()) continue;
      for (Op* op : u->second) {
        if (op->kind == OpKind::Piece || op->kind == OpKind::Dim) continue;
        if (op->kind == OpKind::Call && op->name == "fill" && v == x && op->operands.size() == 2 && op->operands[0] == x &&
            !fill) {
          fill = op;
        } else if (op->kind == OpKind::Copy && !op->name.empty() && v == x && op->operands[0] == x && !fold) {
          fold = op;
        } else if (op->kind == OpKind::Copy && !op->name.empty() && op->operands[1] == v && op->operands[0] != v &&
                   !fam.count(op->operands[0])) {
          reducers.push_back(op);
        } else {
          ok = false;
        }
      }
    }
    if (!ok || !fill || !fold || reducers.empty()) continue;
    ValueId s = fold->operands[1];
    if (!is_tensor(s) || fam.count(s) || !same_shape(s, x) || replicated(ix, s)) continue;
    if (xa->mem != MemKind::None && xa->mem != f_.info(s).mem) continue;
    // The fill writes the identity of the fold's reduction; every reduction into X is the same.
    if (fold->name != "sum" && fold->name != "max") continue;
    const double id = fold->name == "sum" ? 0.0 : -std::numeric_limits<double>::infinity();
    const Op* c = find_def(ix, fill->operands[1]);
    if (!c || c->kind != OpKind::FConst || c->fval != id) continue;
    for (const Op* r : reducers) ok = ok && r->name == fold->name;
    // Fill, reductions, fold in program order in one block; S visible where X is allocated.
    const Path &pf = ix.path.at(fill), &po = ix.path.at(fold);
    if (!ok || pf.size() != po.size() || !std::equal(pf.begin(), pf.end() - 1, po.begin()) || !(pf < po)) continue;
    for (const Op* r : reducers) {
      const Path& pr = ix.path.at(r);
      ok = ok && pr.size() >= pf.size() && std::equal(pf.begin(), pf.end() - 1, pr.begin()) && pf < pr && pr < po;
    }
    auto ws = ix.where.find(s);
    if (!ok || (ws != ix.where.end() && !dominates(ws->second, ix.path.at(xa)))) continue;
    // What the fold waits for besides X's reductions: defined before the fill (so it cannot wait
    // for the reductions), it becomes a precondition of each of them.
    std::vector<EventRef> pre;
    for (const EventRef& r : fold->after) {
      const Op* d = find_def(ix, r.value);
      if (d && std::find(reducers.begin(), reducers.end(), d) != reducers.end()) continue;
      auto w = ix.where.find(r.value);
      if (w != ix.where.end() && !dominates(w->second, pf)) ok = false;
      pre.push_back(r);
    }
    // No other access of S's root between the fill and the fold but reductions of the same kind.
    for (ValueId v : family(ix, root_of(ix, s))) {
      auto u = ix.users.find(v);
      if (u == ix.users.end()) continue;
      for (const Op* op : u->second) {
        if (op == fold || !accesses(*op, v)) continue;
        const Path& pp = ix.path.at(op);
        if (pf < pp && pp < po && !(op->kind == OpKind::Copy && op->name == fold->name && op->operands[1] == v)) ok = false;
      }
    }
    if (!ok) continue;
    for (Op* r : reducers)
      for (const EventRef& e : pre)
        if (std::find(r->after.begin(), r->after.end(), e) == r->after.end()) r->after.push_back(e);
    to_join(*fill);
    to_join(*fold);
    replace_values({{x, s}});
    return true;
  }
  return false;
}

}  // namespace loom::copy_elimination_detail
