// Copy elimination, rewrites 4b, 4c, 4h and 4d (numbered as in copy_elimination.h; 4b and 4d are
// described only here): NONE locals given a place to live — in the buffer their data is copied into
// (NONE forwarding), in registers of their own when only register copies reach them (register
// conduits), narrowed to the one leading piece that is used (leading pieces), moved into the loop
// body that alone uses them (sinking).
#include "passes/copy_elimination_internal.h"

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace loom::copy_elimination_detail {

// 4b. NONE forwarding: S = alloc NONE whose data is copied, whole, into a fresh allocation X in a
//     real memory (copy S -> X) and not used after that copy: S lives in X's buffer instead (X's
//     alloc moves up to S's), and the copy goes. (FA: the probabilities P written by each thread
//     into a NONE tile go straight into the shared tile the P*V GEMM reads.)
bool CopyEliminator::forward_none() {
  Index ix = index();
  std::vector<Op*> allocs;
  for_each_op(f_.body, [&](Op& op) {
    if (op.kind == OpKind::Alloc && op.mem == MemKind::None) allocs.push_back(&op);
  });
  for (Op* sa : allocs) {
    ValueId sv = sa->result;
    std::set<ValueId> sfam = family(ix, sv);
    const Op* cp = nullptr;
    int copies_out = 0;
    for (ValueId v : sfam) {
      auto u = ix.users.find(v);
      if (u == ix.users.end()) continue;
      for (const Op* op : u->second)
        if (op->kind == OpKind::Copy && op->operands[0] == v) {
          ++copies_out;
          if (v == sv && op->name.empty()) cp = op;
        }
    }
    if (!cp || copies_out != 1) continue;
    ValueId x = cp->operands[1];
    const Op* xa = find_def(ix, x);
    if (!xa || f_.info(x).mem == MemKind::None || !same_shape(x, sv)) continue;
    const Path& pc = ix.path.at(cp);
    const Path& ps = ix.path.at(sa);
    bool ok = true;
    if (xa->kind != OpKind::Alloc) {
      // X is a piece of a live tensor: it must already be visible where S is allocated, and its
      // root untouched from S's allocation to the copy (S's writes land in X early).
      auto wx = ix.where.find(x);
      if (wx == ix.where.end() || !dominates(wx->second, ps)) continue;
      for (ValueId v : family(ix, root_of(ix, x))) {
        auto u = ix.users.find(v);
        if (u == ix.users.end()) continue;
        for (const Op* op : u->second)
          if (op != cp && accesses(*op, v) && ps < ix.path.at(op) && ix.path.at(op) < pc) ok = false;
      }
      for (ValueId v : sfam) {
        auto u = ix.users.find(v);
        if (u == ix.users.end()) continue;
        for (const Op* op : u->second)
          if (op != cp && accesses(*op, v) && !(ix.path.at(op) < pc)) ok = false;
      }
      if (!ok) continue;
      replace_values({{sv, x}});
      drop_self_copies();
      return true;
    }
    // S not accessed after the copy; X not written before it.
    for (ValueId v : sfam) {
      auto u = ix.users.find(v);
      if (u == ix.users.end()) continue;
      for (const Op* op : u->second)
        if (op != cp && accesses(*op, v) && !(ix.path.at(op) < pc)) ok = false;
    }
    for (ValueId v : family(ix, x)) {
      auto u = ix.users.find(v);
      if (u == ix.users.end()) continue;
      for (const Op* op : u->second)
        if (op != cp && writes(*op, v) && ix.path.at(op) < pc) ok = false;
    }
    // X's extents must be visible where S is allocated; both in the same block.
    const Path& px = ix.path.at(xa);
    if (ps.size() != px.size() || !std::equal(ps.begin(), ps.end() - 1, px.begin())) ok = false;
    for (ValueId v : xa->operands)
      if (!dominates(ix.where.count(v) ? ix.where.at(v) : Path{}, ps)) ok = false;
    if (!ok) continue;
    // Move X's alloc to S's place, then S := X.
    Block* blk = block_at(ps);
    Op moved = *xa;
    size_t xi = static_cast<size_t>(px.back()), si = static_cast<size_t>(ps.back());
    blk->ops.erase(blk->ops.begin() + static_cast<std::ptrdiff_t>(xi));
    blk->ops.insert(blk->ops.begin() + static_cast<std::ptrdiff_t>(si), std::move(moved));
    replace_values({{sv, x}});
    drop_self_copies();
    return true;
  }
  return false;
}

// 4c. register conduits: a NONE allocation S accessed only by plain copies between one piece P of
//     it (the same SSA value: one processor's private piece) and REGISTER allocations of P's
//     element type. The data only ever moves between registers of the processor that owns P, so
//     P becomes a REGISTER allocation of its own, defined where P is (FA3: the scores S that the
//     K loop carries from one iteration's GEMM to the next iteration's softmax).
//     Leading pieces: the copies may also reach P through leading cuts — `blocks` pieces at index
//     0 in every dimension (`blocks(S, [*, n])[0, 0]`, possibly clipped) anywhere in the chain of
//     pieces from S, which is otherwise the same partitions with the same block sizes and
//     indices. Every partition maps a leading box of its tensor to a leading box of the piece, in
//     the same compact coordinates (blocks and mma pieces are products of increasing index lists,
//     clipped to a prefix, src/layout/partition.h), so such a piece V is the leading box of P with
//     V's extents: the same registers, only fewer of them. V's copies use
//     `piece R blocks[dim(V, 0), ...] [0, ...]` of P's register allocation R. (FA3 with N not a
//     multiple of the tile: the first GEMM writes, and the last softmax reads, the first
//     cols(Kp[0, j]) columns of the carried scores.)
bool CopyEliminator::register_conduits() {
  Index ix = index();
  std::vector<Op*> allocs;
  for_each_op(f_.body, [&](Op& op) {
    if (op.kind == OpKind::Alloc && op.mem == MemKind::None && !op.distinct) allocs.push_back(&op);
  });
  for (Op* sa : allocs) {
    ValueId p = kNone;             // the uncut piece
    std::set<ValueId> cut;         // pieces reached through leading cuts
    std::string key;               // the chain of partitions without the cuts, the same for all
    bool ok = true;
    int copies = 0;
    for (ValueId v : family(ix, sa->result)) {
      auto u = ix.users.find(v);
      if (u == ix.users.end()) continue;
      for (const Op* op : u->second) {
        if (op->kind == OpKind::Piece || op->kind == OpKind::Dim) continue;
        if (op->kind != OpKind::Copy || !op->name.empty()) {
          ok = false;
          continue;
        }
        ValueId other = op->operands[0] == v ? op->operands[1] : op->operands[0];
        if (f_.info(other).mem != MemKind::Register || !same_type_but_mem(other, v)) ok = false;
        bool has_cut = false;
        std::string k = chain_key(ix, v, sa->result, has_cut);
        if (!key.empty() && k != key) ok = false;
        key = k;
        if (has_cut) {
          cut.insert(v);
        } else {
          if (p != kNone && p != v) ok = false;
          p = v;
        }
        ++copies;
      }
    }
    if (!ok || p == kNone || copies == 0 || p == sa->result || replicated(ix, p)) continue;
    // R goes right after P; each cut piece's view of R right after that piece, which R must reach.
    for (ValueId v : cut)
      if (replicated(ix, v) || !dominates(ix.where.at(p), ix.where.at(v))) ok = false;
    if (!ok) continue;
    // P is defined by a piece op; the new allocation goes right after it, with P's extents.
    std::vector<Op> ops;
    Op r;
    r.kind = OpKind::Alloc;
    ir::ValueInfo vi = f_.info(p);
    vi.mem = MemKind::Register;
    r.result = f_.add_value(vi);
    r.mem = MemKind::Register;
    r.dtype = vi.dtype;
    r.name = sa->name;
    r.loc = sa->loc;
    r.origin = sa->origin + " [register conduit]";
    r.holds = p;
    r.operands = dims_of(p, vi.rank, ops);
    ValueId rv = r.result;
    ops.push_back(std::move(r));
    std::unordered_map<ValueId, ValueId> redirect{{p, rv}};
    insert_after_def(p, std::move(ops));
    // A cut piece V: its leading box of R, `piece R blocks[dim(V, 0), ...] [0, ...]`.
    for (ValueId v : cut) {
      std::vector<Op> vops;
      Op pc;
      pc.kind = OpKind::Piece;
      pc.part.kind = ir::PartitionSpec::Kind::Blocks;
      pc.part.block = dims_of(v, f_.info(v).rank, vops);
      Op zero;
      zero.kind = OpKind::Const;
      zero.ival = 0;
      zero.result = f_.add_value(ir::ValueInfo{Type::Index, "c0"});
      pc.operands.push_back(rv);
      for (int d = 0; d < f_.info(v).rank; ++d) pc.operands.push_back(zero.result);
      vops.push_back(std::move(zero));
      ir::ValueInfo pv = f_.info(v);
      pv.mem = MemKind::Register;
      pc.result = f_.add_value(pv);
      redirect[v] = pc.result;
      vops.push_back(std::move(pc));
      insert_after_def(v, std::move(vops));
    }
    // Redirect the copies (not the piece/dim ops that define P's extents).
    for_each_op(f_.body, [&](Op& op) {
      if (op.kind != OpKind::Copy) return;
      for (ValueId& v : op.operands) {
        auto it = redirect.find(v);
        if (it != redirect.end()) v = it->second;
      }
    });
    return true;
  }
  return false;
}

// `dim v, d` ops for d < rank, appended to `ops`; returns their results.
std::vector<ValueId> CopyEliminator::dims_of(ValueId v, int rank, std::vector<Op>& ops) {
  std::vector<ValueId> out;
  for (int d = 0; d < rank; ++d) {
    Op dm;
    dm.kind = OpKind::Dim;
    dm.result = f_.add_value(ir::ValueInfo{Type::Index, ""});
    dm.operands = {v};
    dm.ival = d;
    out.push_back(dm.result);
    ops.push_back(std::move(dm));
  }
  return out;
}

// Inserts `ops` right after the op that defines `v`.
void CopyEliminator::insert_after_def(ValueId v, std::vector<Op> ops) {
  std::function<bool(Block&)> walk = [&](Block& b) -> bool {
    for (size_t i = 0; i < b.ops.size(); ++i) {
      if (b.ops[i].result == v) {
        b.ops.insert(b.ops.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::make_move_iterator(ops.begin()),
                     std::make_move_iterator(ops.end()));
        return true;
      }
      for (Block& r : b.ops[i].regions)
        if (walk(r)) return true;
    }
    return false;
  };
  walk(f_.body);
}

// Whether `op` cuts the leading box of its tensor: a `blocks` piece at index 0 in every dimension
// (each block size, or the extent when smaller, from the origin: `blocks(X, [*, n])[0, 0]`).
bool CopyEliminator::leading_cut(const Index& ix, const Op& op) {
  if (op.kind != OpKind::Piece || op.part.kind != ir::PartitionSpec::Kind::Blocks || op.operands.size() < 2) return false;
  for (size_t i = 1; i < op.operands.size(); ++i) {
    const Op* d = find_def(ix, op.operands[i]);
    if (!d || d->kind != OpKind::Const || d->ival != 0) return false;
  }
  return true;
}

// The chain of piece ops from `root` to `v`, leading cuts left out, as a key: two pieces with the
// same key are the same partitions (kinds, block sizes, indices) of `root`. `has_cut`: whether the
// chain has a leading cut.
std::string CopyEliminator::chain_key(const Index& ix, ValueId v, ValueId root, bool& has_cut) const {
  std::vector<std::string> parts;
  has_cut = false;
  while (v != root) {
    const Op* d = find_def(ix, v);
    if (!d || d->kind != OpKind::Piece) return "?";
    if (leading_cut(ix, *d)) {
      has_cut = true;
    } else {
      Op k = *d;
      k.operands[0] = kNone;
      k.result = kNone;
      parts.push_back(cse_key(k));
    }
    v = d->operands[0];
  }
  std::string key = "root";
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) key += ";" + *it;
  return key;
}

// 4h. leading pieces: a NONE allocation S all of whose accesses go through one leading cut
//     W = blocks(S, [...])[0, ...] of it, cut in S's own block: no element of S outside W is ever
//     touched, so W becomes a NONE allocation of its own with W's extents, where W is defined,
//     and the rewrites above treat it as they treat any NONE tensor (FA3: the probabilities of
//     the last, possibly narrower, K/V tile go straight into the shared tile the last P*V GEMM
//     reads, as forward_none places a whole tile).
bool CopyEliminator::narrow_to_leading_pieces() {
  Index ix = index();
  std::vector<Op*> allocs;
  for_each_op(f_.body, [&](Op& op) {
    if (op.kind == OpKind::Alloc && op.mem == MemKind::None && !op.distinct) allocs.push_back(&op);
  });
  for (Op* sa : allocs) {
    const ValueId sv = sa->result;
    ValueId w = kNone;
    bool ok = true;
    auto us = ix.users.find(sv);
    if (us == ix.users.end()) continue;
    for (const Op* op : us->second) {
      if (op->kind == OpKind::Dim) continue;
      if (op->kind != OpKind::Piece || op->operands[0] != sv || !leading_cut(ix, *op) || (w != kNone && w != op->result)) {
        ok = false;
        break;
      }
      w = op->result;
    }
    if (!ok || w == kNone) continue;
    const Path &ps = ix.path.at(sa), &pw = ix.where.at(w);
    if (ps.size() != pw.size() || !std::equal(ps.begin(), ps.end() - 1, pw.begin())) continue;
    std::set<ValueId> wfam = family(ix, w);
    bool accessed = false;
    for (ValueId v : family(ix, sv)) {
      auto u = ix.users.find(v);
      if (u == ix.users.end()) continue;
      for (const Op* op : u->second)
        if (accesses(*op, v)) {
          accessed = true;
          if (!wfam.count(v)) ok = false;
        }
    }
    if (!ok || !accessed) continue;
    std::vector<Op> ops;
    Op n;
    n.kind = OpKind::Alloc;
    ir::ValueInfo vi = f_.info(w);
    vi.mem = MemKind::None;
    vi.name = f_.info(sv).name;  // the tensor the program declared (diagnostics name it)
    n.result = f_.add_value(vi);
    n.mem = MemKind::None;
    n.dtype = vi.dtype;
    n.name = sa->name;
    n.loc = sa->loc;
    n.origin = sa->origin + " [leading piece]";
    n.operands = dims_of(w, vi.rank, ops);
    const ValueId nv = n.result;
    ops.push_back(std::move(n));
    replace_values({{w, nv}});
    insert_after_def(w, std::move(ops));
    return true;
  }
  return false;
}

// 4d. sinking: a NONE local S accessed only inside one `for` body, whose first access there (in
//     program order) writes all of S — a vectorized copy into a chain of pieces indexed only by
//     processor indices (and 0 for whole dimensions), the processors jointly covering S — holds
//     nothing from one iteration to the next: its allocation moves into the body (a fresh buffer
//     per iteration), where forward_none can place it.
bool CopyEliminator::sink_locals() {
  Index ix = index();
  std::vector<Op*> allocs;
  for_each_op(f_.body, [&](Op& op) {
    if (op.kind == OpKind::Alloc && op.mem == MemKind::None && !op.distinct) allocs.push_back(&op);
  });
  for (Op* sa : allocs) {
    const Path& ps = ix.path.at(sa);
    Block* home = block_at(ps);
    std::set<ValueId> fam = family(ix, sa->result);
    // The accesses, and the loop of `home` that holds them all.
    int loop = -1;
    bool ok = true;
    const Op* first = nullptr;
    for (ValueId v : fam) {
      auto u = ix.users.find(v);
      if (u == ix.users.end()) continue;
      for (const Op* op : u->second) {
        if (!accesses(*op, v)) continue;
        const Path& up = ix.path.at(op);
        if (up.size() <= ps.size() || !std::equal(ps.begin(), ps.end() - 1, up.begin())) {
          ok = false;
          continue;
        }
        int l = up[ps.size() - 1];
        if (loop >= 0 && l != loop) ok = false;
        loop = l;
        if (!first || up < ix.path.at(first)) first = op;
      }
    }
    if (!ok || loop < 0 || !first) continue;
    Op& lop = home->ops[static_cast<size_t>(loop)];
    if (lop.kind != OpKind::For) continue;
    const Path& fp = ix.path.at(first);
    if (fp.size() != ps.size() + 1 || first->kind != OpKind::Copy || !first->name.empty()) continue;
    if (!covers_root(ix, first->operands[1], sa->result)) continue;
    for (ValueId v : sa->operands)
      if (!dominates(ix.where.count(v) ? ix.where.at(v) : Path{}, ix.path.at(&lop))) ok = false;
    if (!ok) continue;
    // Move the alloc and the pieces/dims of S defined in `home` into the body, in order.
    Block& body = lop.regions[0];
    std::vector<Op> moved;
    moved.push_back(*sa);
    std::set<ValueId> moving{sa->result};
    for (size_t i = static_cast<size_t>(ps.back()) + 1; i < static_cast<size_t>(loop); ++i) {
      const Op& o = home->ops[i];
      bool dep = false;
      for (ValueId v : o.operands) dep = dep || moving.count(v);
      if (dep && immediate(o.kind)) {
        moved.push_back(o);
        moving.insert(o.result);
      } else if (dep) {
        ok = false;
      }
    }
    if (!ok) continue;
    body.ops.insert(body.ops.begin(), moved.begin(), moved.end());
    for (size_t i = static_cast<size_t>(loop); i-- > static_cast<size_t>(ps.back());)
      if (home->ops[i].result != kNone && moving.count(home->ops[i].result))
        home->ops.erase(home->ops.begin() + static_cast<std::ptrdiff_t>(i));
    return true;
  }
  return false;
}

// Whether the processors running the copy into `w` (a vectorized op) jointly write all of `root`:
// every piece between them is indexed by processor indices, or 0 along a whole (`*`) dimension.
bool CopyEliminator::covers_root(const Index& ix, ValueId w, ValueId root) {
  while (w != root) {
    const Op* d = find_def(ix, w);
    if (!d || d->kind != OpKind::Piece) return false;
    for (size_t i = 1; i < d->operands.size(); ++i) {
      ValueId idx = d->operands[i];
      const Op* id = find_def(ix, idx);
      bool whole = d->part.kind == ir::PartitionSpec::Kind::Blocks && i - 1 < d->part.block.size() &&
                   d->part.block[i - 1] == kNone;
      if (id && id->kind == OpKind::ProcIndex) {
        if (d->part.kind != ir::PartitionSpec::Kind::Blocks) continue;  // mma: one piece per processor
        // blocks of cdiv(extent, n) over n processors cover the extent
        const Op* bs = i - 1 < d->part.block.size() ? find_def(ix, d->part.block[i - 1]) : nullptr;
        const Op* n = bs && bs->kind == OpKind::Arith && bs->name == "cdiv" ? find_def(ix, bs->operands[1]) : nullptr;
        auto pe = f_.proc_extents.find(id->proc);
        if (n && n->kind == OpKind::Const && pe != f_.proc_extents.end() && n->ival == pe->second) continue;
        return false;
      }
      if (whole && id && id->kind == OpKind::Const && id->ival == 0) continue;
      return false;
    }
    if (d->part.kind == ir::PartitionSpec::Kind::Slices) return false;
    w = d->operands[0];
  }
  return true;
}

}  // namespace loom::copy_elimination_detail
