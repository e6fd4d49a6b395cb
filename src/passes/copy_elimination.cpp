// Copy elimination. See copy_elimination.h.
#include "passes/copy_elimination.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/leaf_ops.h"

namespace loom {

namespace {

using ir::Block;
using ir::EventRef;
using ir::Function;
using ir::kNone;
using ir::Op;
using ir::OpKind;
using ir::Type;
using ir::ValueId;
using ir::for_each_op;
using ir::for_each_ref;

bool immediate(OpKind k) {
  return k == OpKind::Const || k == OpKind::FConst || k == OpKind::Arith || k == OpKind::Dim || k == OpKind::ProcIndex ||
         k == OpKind::Piece;
}

// Every value an op reads: operands and partition block sizes.
template <typename F>
void for_each_operand(Op& op, F&& fn) {
  for (ValueId& v : op.operands) fn(v);
  for (ValueId& v : op.part.block) fn(v);
  for (EventRef& r : op.after)
    for (ValueId& i : r.indices)
      if (i != kNone) fn(i);
}

// Where a value is defined: the op-index path from the function body (block arguments: the path of
// their loop followed by -1; parameters: empty).
using Path = std::vector<int>;

// Whether the value defined at `def` is visible at (dominates) the op at `use`.
bool dominates(const Path& def, const Path& use) {
  if (def.empty()) return true;
  if (def.size() > use.size()) return false;
  for (size_t i = 0; i + 1 < def.size(); ++i)
    if (def[i] != use[i]) return false;
  return def.back() < use[def.size() - 1];
}

class CopyEliminator {
 public:
  explicit CopyEliminator(Function& f) : f_(f) {}

  void run() {
    for (int round = 0; round < 200; ++round) {
      bool changed = false;
      changed |= canonicalize();
      changed |= overwritten_copies();
      changed |= spill_eliminate();
      changed |= spill_hoist();
      changed |= coalesce();
      changed |= forward_none();
      if (!changed) changed |= sink_locals();        // only once nothing simpler applies
      if (!changed) changed |= narrow_to_leading_pieces();
      if (!changed) changed |= register_conduits();
      if (!changed) changed |= hoist_invariant_copies();
      if (!changed) changed |= forward_reductions();
      changed |= merge_duplicate_copies();
      changed |= dead_copies();
      changed |= forward_joins();
      changed |= dead_code();
      if (!changed) break;
    }
    check_none();
  }

 private:
  // ---------------------------------------------------------------------------------------------
  // Indexes, rebuilt whenever a rewrite needs them (the IR is small; clarity over incrementality).
  struct Index {
    std::unordered_map<ValueId, Op*> def;       // result -> defining op
    std::unordered_map<ValueId, Path> where;     // result or block argument -> path
    std::unordered_map<const Op*, Path> path;    // op -> path
    std::unordered_map<ValueId, std::vector<Op*>> users;  // value -> ops that read it (operands)
    std::unordered_map<ValueId, int> event_uses;           // event value -> references
  };

  Index index() {
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

  static const Op* find_def(const Index& ix, ValueId v) {
    auto d = ix.def.find(v);
    return d == ix.def.end() ? nullptr : d->second;
  }

  // The allocation or parameter a tensor is cut from.
  static ValueId root_of(const Index& ix, ValueId v) {
    for (const Op* d = find_def(ix, v); d && d->kind == OpKind::Piece; d = find_def(ix, v)) v = d->operands[0];
    return v;
  }

  // A tensor's root and every piece cut from it (transitively).
  static std::set<ValueId> family(const Index& ix, ValueId root) {
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
  bool replicated(const Index& ix, ValueId v) const {
    for (const Op* d = find_def(ix, v); d && d->kind == OpKind::Piece; d = find_def(ix, d->operands[0]))
      if (d->part.kind == ir::PartitionSpec::Kind::Mma && d->part.holder == ProcKind::Warp && f_.info(d->operands[0]).rank == 1)
        return true;
    return false;
  }

  bool is_tensor(ValueId v) const { return f_.info(v).type == Type::Tensor; }
  bool is_param(ValueId v) const { return std::find(f_.params.begin(), f_.params.end(), v) != f_.params.end(); }

  // Whether `op` reads / writes tensor `v` (an operand).
  static bool reads(const Op& op, ValueId v) {
    if (op.kind == OpKind::Copy) return op.operands[0] == v || (op.operands[1] == v && !op.name.empty());
    if (op.kind != OpKind::Call) return false;
    const LeafOp* leaf = find_leaf_op(op.name);
    for (size_t i = 0; i < op.operands.size(); ++i)
      if (op.operands[i] == v && (!leaf || i >= leaf->args.size() || leaf->args[i].access != Access::Write)) return true;
    return false;
  }
  static bool writes(const Op& op, ValueId v) {
    if (op.kind == OpKind::Copy) return op.operands[1] == v;
    if (op.kind != OpKind::Call) return false;
    const LeafOp* leaf = find_leaf_op(op.name);
    for (size_t i = 0; i < op.operands.size(); ++i)
      if (op.operands[i] == v && (!leaf || i >= leaf->args.size() || leaf->args[i].access != Access::Read)) return true;
    return false;
  }
  static bool accesses(const Op& op, ValueId v) { return reads(op, v) || writes(op, v); }

  // Replaces every use of the keys of `m` (operands, event indices) by the mapped values.
  void replace_values(const std::unordered_map<ValueId, ValueId>& m) {
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
  void drop_self_copies() {
    for_each_op(f_.body, [&](Op& op) {
      if (op.kind == OpKind::Copy && op.name.empty() && op.operands[0] == op.operands[1]) to_join(op);
    });
  }

  // A removed copy becomes a join over its preconditions (its event keeps its meaning).
  static void to_join(Op& op) {
    op.kind = OpKind::Join;
    op.operands.clear();
    op.name.clear();
  }

  ValueId add_event_like(ValueId like, const std::string& name) {
    ir::ValueInfo vi = f_.info(like);
    vi.name = name;
    return f_.add_value(vi);
  }

  // ---------------------------------------------------------------------------------------------
  // 1. canonicalize: fold dim-of-alloc, CSE immediate ops per scope, hoist loop invariants.
  bool canonicalize() {
    bool changed = false;
    std::unordered_map<ValueId, std::vector<ValueId>> extents;  // alloc -> extents
    std::unordered_set<ValueId> none_allocs;
    // Blocks pieces: a whole (`*`) dimension of the piece is the parent's (parent, whole dims).
    std::unordered_map<ValueId, std::pair<ValueId, std::vector<bool>>> blocks_pieces;
    for_each_op(f_.body, [&](Op& op) {
      if (op.kind == OpKind::Alloc) extents[op.result] = op.operands;
      if (op.kind == OpKind::Alloc && op.mem == MemKind::None) none_allocs.insert(op.result);
      if (op.kind == OpKind::Piece && op.part.kind == ir::PartitionSpec::Kind::Blocks && op.result != kNone) {
        std::vector<bool> whole;
        for (ValueId b : op.part.block) whole.push_back(b == kNone);
        blocks_pieces[op.result] = {op.operands[0], whole};
      }
    });
    auto whole_parent = [&](ValueId v, int64_t d) -> ValueId {
      auto it = blocks_pieces.find(v);
      if (it == blocks_pieces.end() || d < 0 || static_cast<size_t>(d) >= it->second.second.size() ||
          !it->second.second[static_cast<size_t>(d)])
        return kNone;
      return it->second.first;
    };
    std::unordered_map<ValueId, ValueId> repl;
    auto get = [&](ValueId v) {
      for (auto it = repl.find(v); it != repl.end(); it = repl.find(v)) v = it->second;
      return v;
    };
    std::function<void(Block&, std::map<std::string, ValueId>)> walk = [&](Block& b, std::map<std::string, ValueId> scope) {
      for (size_t i = 0; i < b.ops.size();) {
        Op& op = b.ops[i];
        for_each_operand(op, [&](ValueId& v) { v = get(v); });
        if (op.kind == OpKind::Dim) {
          auto ext = extents.find(op.operands[0]);
          if (ext != extents.end() && op.ival >= 0 && static_cast<size_t>(op.ival) < ext->second.size()) {
            repl[op.result] = get(ext->second[static_cast<size_t>(op.ival)]);
            b.ops.erase(b.ops.begin() + static_cast<std::ptrdiff_t>(i));
            changed = true;
            continue;
          }
        }
        if (immediate(op.kind) && op.result != kNone) {
          // dim(piece P blocks[.., *, ..], d) is dim(P, d): such dims are keyed by P (the op stays
          // as it is unless an equal one is in scope).
          Op keyed;
          if (op.kind == OpKind::Dim) {
            keyed = op;
            for (ValueId p = whole_parent(keyed.operands[0], keyed.ival); p != kNone; p = whole_parent(p, keyed.ival))
              keyed.operands[0] = p = get(p);
            // ... and when P is a NONE allocation, its extent operand (as a dim of P itself folds):
            // a leading piece blocks(P, [*, n])[0, 0] and P are then partitioned alike along the
            // whole dimensions (FA3: the clipped score tile and the whole one, cut between the
            // warpgroups by rows).
            auto ext = extents.find(keyed.operands[0]);
            if (keyed.operands[0] != op.operands[0] && ext != extents.end() && none_allocs.count(keyed.operands[0]) &&
                static_cast<size_t>(op.ival) < ext->second.size()) {
              repl[op.result] = get(ext->second[static_cast<size_t>(op.ival)]);
              b.ops.erase(b.ops.begin() + static_cast<std::ptrdiff_t>(i));
              changed = true;
              continue;
            }
          }
          std::string key = cse_key(op.kind == OpKind::Dim ? keyed : op);
          auto it = scope.find(key);
          if (it != scope.end() && same_type(it->second, op.result)) {
            repl[op.result] = it->second;
            b.ops.erase(b.ops.begin() + static_cast<std::ptrdiff_t>(i));
            changed = true;
            continue;
          }
          scope[key] = op.result;
        }
        if (op.kind == OpKind::For && op.regions.size() == 1) {
          std::vector<Op> hoisted = loop_invariants(op.regions[0], get);
          if (!hoisted.empty()) {
            b.ops.insert(b.ops.begin() + static_cast<std::ptrdiff_t>(i), std::make_move_iterator(hoisted.begin()),
                         std::make_move_iterator(hoisted.end()));
            changed = true;
            continue;  // visit the hoisted ops first (they may merge with ops already in scope)
          }
        }
        for (Block& r : b.ops[i].regions) walk(r, scope);
        ++i;
      }
      for (ValueId& y : b.yield.indices)
        if (y != kNone) y = get(y);
    };
    walk(f_.body, {});
    for (ValueId& y : f_.result.indices)
      if (y != kNone) y = get(y);
    if (!repl.empty()) replace_values(repl);  // uses in yields of enclosing blocks, etc.
    // A piece lives in its tensor's memory (which changes when a rewrite gives the tensor another
    // allocation: a NONE local placed in a SHARED buffer).
    for_each_op(f_.body, [&](Op& op) {
      if (op.kind != OpKind::Piece || op.result == kNone) return;
      MemKind m = f_.info(op.operands[0]).mem;
      if (f_.info(op.result).mem != m) {
        f_.values.at(static_cast<size_t>(op.result)).mem = m;
        changed = true;
      }
    });
    return changed;
  }

  bool same_type(ValueId a, ValueId b) const {
    const ir::ValueInfo &x = f_.info(a), &y = f_.info(b);
    return x.type == y.type && x.dtype == y.dtype && x.mem == y.mem && x.rank == y.rank;
  }

  static std::string cse_key(const Op& op) {
    std::ostringstream k;
    k << static_cast<int>(op.kind) << '|' << op.ival << '|';
    uint64_t bits = 0;
    std::memcpy(&bits, &op.fval, sizeof bits);
    k << bits << '|' << op.name << '|' << static_cast<int>(op.proc) << '|';
    for (ValueId v : op.operands) k << v << ',';
    if (op.kind == OpKind::Piece) {
      const ir::PartitionSpec& p = op.part;
      k << "|p" << static_cast<int>(p.kind) << ',' << p.dim << ',' << static_cast<int>(p.role) << ',' << p.instr << ','
        << p.m << ',' << p.n << ',' << p.k << ',' << static_cast<int>(p.holder) << ':';
      for (ValueId v : p.block) k << v << ',';
    }
    return k.str();
  }

  // Removes from `body` the immediate ops that use nothing defined in it (transitively) and returns
  // them in order, operands already renamed.
  template <typename Get>
  std::vector<Op> loop_invariants(Block& body, Get&& get) {
    std::unordered_set<ValueId> inner(body.args.begin(), body.args.end());
    std::vector<Op> out;
    std::vector<Op> keep;
    for (Op& op : body.ops) {
      bool inv = immediate(op.kind) && op.result != kNone;
      if (inv) {
        for_each_operand(op, [&](ValueId& v) {
          v = get(v);
          if (inner.count(v)) inv = false;
        });
      }
      if (inv) {
        out.push_back(std::move(op));
      } else {
        if (op.result != kNone) inner.insert(op.result);
        keep.push_back(std::move(op));
      }
    }
    body.ops = std::move(keep);
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // 2. spill elimination: copy X1 -> P; ...; copy P -> X2  ==>  X2 := X1.
  bool spill_eliminate() {
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

  static void for_each_op_in(const Op& op, const std::function<void(const Op&)>& fn) {
    fn(op);
    for (const Block& r : op.regions)
      for (const Op& o : r.ops) for_each_op_in(o, fn);
  }

  // b.ops[i] = copy X1 -> P, b.ops[j] = copy P -> X2: may X2 become X1? Fills `readers` with the
  // ops that read X1 between the two copies.
  bool candidate_spill(const Index& ix, const Block& b, size_t i, size_t j, std::vector<const Op*>& readers) {
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

  // A reference to event `e` from the op at `at`: each processor dimension indexed by a
  // proc_index of that kind visible at `at` (point-wise), or `:` when none is.
  EventRef ref_at(const Index& ix, ValueId e, const Path& at) {
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

  // ---------------------------------------------------------------------------------------------
  // 2b. overwritten copies: copy X -> P; ...; copy Y -> P with no read of P's root in between:
  //     the first copy's data is never seen.
  bool overwritten_copies() {
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

  // ---------------------------------------------------------------------------------------------
  // 4b. NONE forwarding: S = alloc NONE whose data is copied, whole, into a fresh allocation X in a
  //     real memory (copy S -> X) and not used after that copy: S lives in X's buffer instead (X's
  //     alloc moves up to S's), and the copy goes. (FA: the probabilities P written by each thread
  //     into a NONE tile go straight into the shared tile the P*V GEMM reads.)
  bool forward_none() {
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
  bool register_conduits() {
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
  std::vector<ValueId> dims_of(ValueId v, int rank, std::vector<Op>& ops) {
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
  void insert_after_def(ValueId v, std::vector<Op> ops) {
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
  static bool leading_cut(const Index& ix, const Op& op) {
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
  std::string chain_key(const Index& ix, ValueId v, ValueId root, bool& has_cut) const {
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
  bool narrow_to_leading_pieces() {
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
  bool sink_locals() {
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
  bool covers_root(const Index& ix, ValueId w, ValueId root) {
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

  bool same_type_but_mem(ValueId a, ValueId b) const {
    return f_.info(a).dtype == f_.info(b).dtype && f_.info(a).rank == f_.info(b).rank;
  }

  bool same_shape(ValueId a, ValueId b) const {
    return f_.info(a).dtype == f_.info(b).dtype && f_.info(a).rank == f_.info(b).rank;
  }

  // The block holding the op at `p`.
  Block* block_at(const Path& p) {
    Block* b = &f_.body;
    for (size_t i = 0; i + 1 < p.size(); ++i) b = &b->ops[static_cast<size_t>(p[i])].regions.at(0);
    return b;
  }

  // ---------------------------------------------------------------------------------------------
  // 3. spill hoisting: in a for body, X = alloc; copy P -> X; ...; copy X -> P  ==>  around the loop.
  bool spill_hoist() {
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

  bool hoist_one(const Index& ix, Block& parent, size_t li) {
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

  static int position_in(const Block& b, const Op* op) {
    for (size_t i = 0; i < b.ops.size(); ++i)
      if (&b.ops[i] == op) return static_cast<int>(i);
    return -1;
  }

  // ---------------------------------------------------------------------------------------------
  // 4. coalescing: X = alloc, copied in from S and/or out to S in X's memory  ==>  X := S.
  bool coalesce() {
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

  // ---------------------------------------------------------------------------------------------
  // 4e. loop-invariant copies: in a `for` body, copy S -> X into an allocation X of the body, S
  //     defined before the loop and its root written nowhere in the loop, X written by nothing else,
  //     the copy waiting for nothing the loop defines: every iteration copies the same data. X and
  //     the copy move before the loop (the copy after the loop's preconditions), and the loop waits
  //     for the copy — the reads of X in the body, and through the loop's event every later writer
  //     of S. (FA3: the Q tile, copied again for every K/V tile.)
  //       for %j ... after [%a] { %X = alloc SHARED [%m]; %e = copy %Q -> %X after []; ...uses }
  //       ==>  %X = alloc SHARED [%m]; %e = copy %Q -> %X after [%a]
  //            for %j ... after [%a, %e] { ...uses }
  bool hoist_invariant_copies() {
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

  bool hoist_one_copy(const Index& ix, Block& parent, size_t li) {
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

  // ---------------------------------------------------------------------------------------------
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
  bool forward_reductions() {
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

  // ---------------------------------------------------------------------------------------------
  // 4f. duplicate copies: copy S -> X1; ...; copy S -> X2 in one block, X1 and X2 allocations alike
  //     (memory, element type, extents, layout), each written only by its copy, S's root not written
  //     between the copies: X2 := X1, and the second copy becomes a join that also waits for the
  //     first (readers of X2 now wait for the data to arrive in X1). (Dual GEMM: both products'
  //     tiles of A.)
  //       %e1 = copy %Ap -> %A1 after [%p]; %e2 = copy %Ap -> %A2 after [%q]; ... %A2 ... [%e2] ...
  //       ==>  %e1 = copy %Ap -> %A1 after [%p]; %e2 = join after [%q, %e1]; ... %A1 ... [%e2] ...
  bool merge_duplicate_copies() {
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
  bool duplicate_copies(const Index& ix, const Block& b, size_t i, size_t j) {
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

  // Whether no op both reads and writes (an element of) tensor `x` or a piece of it.
  bool only_overwritten(const Index& ix, ValueId x) {
    for (ValueId v : family(ix, x)) {
      auto u = ix.users.find(v);
      if (u == ix.users.end()) continue;
      for (const Op* w : u->second)
        if (writes(*w, v) && (reads(*w, v) || (w->kind == OpKind::Copy && !w->name.empty()))) return false;
    }
    return true;
  }

  // Whether `op` is the only op that writes tensor `x` or a piece of it.
  bool only_writer(const Index& ix, ValueId x, const Op& op) {
    for (ValueId v : family(ix, x)) {
      auto u = ix.users.find(v);
      if (u == ix.users.end()) continue;
      for (const Op* w : u->second)
        if (w != &op && writes(*w, v)) return false;
    }
    return true;
  }

  // Whether `scope` or an op inside it writes a tensor of `fam`.
  static bool written_in(const std::set<ValueId>& fam, const Op& scope) {
    bool written = false;
    for_each_op_in(scope, [&](const Op& o) {
      for (ValueId v : o.operands)
        if (fam.count(v) && writes(o, v)) written = true;
    });
    return written;
  }

  // A reference to all of event (array) `e`: `%e`, or `%E[:, ...]`.
  EventRef full_ref(ValueId e) const {
    const ir::ValueInfo& vi = f_.info(e);
    return EventRef{e, std::vector<ValueId>(vi.type == Type::Events ? vi.event_dims.size() : 0, kNone)};
  }

  // ---------------------------------------------------------------------------------------------
  // 5. dead copies: writes into a local allocation that nothing reads.
  bool dead_copies() {
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
  bool written_before(const Index& ix, const std::set<ValueId>& fam, const Op& op) {
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

  // ---------------------------------------------------------------------------------------------
  // 6. join forwarding.
  bool forward_joins() {
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

  // ---------------------------------------------------------------------------------------------
  // 7. dead code: unused immediate ops, allocations and joins.
  bool dead_code() {
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

  // ---------------------------------------------------------------------------------------------
  // A NONE allocation still accessed has no memory to live in: a user error.
  void check_none() {
    Index ix = index();
    std::vector<const Op*> allocs;
    for_each_op(f_.body, [&](Op& op) {
      if (op.kind == OpKind::Alloc && op.mem == MemKind::None) allocs.push_back(&op);
    });
    std::vector<std::string> names = ir::value_names(f_);
    for (const Op* al : allocs) {
      const Op* user = nullptr;
      for (ValueId v : family(ix, al->result)) {
        auto u = ix.users.find(v);
        if (u == ix.users.end()) continue;
        for (const Op* op : u->second)
          if (accesses(*op, v) && (!user || ix.path.at(op) < ix.path.at(user))) user = op;
      }
      if (!user) continue;
      const std::string& tname = f_.info(al->result).name;
      Diagnostic d;
      d.loc = al->loc;
      d.message = "tensor `" + tname + "` is mapped to NONE" + (al->name.empty() ? "" : " by instance `" + al->name + "`") +
                  " but still needs memory after copy elimination";
      d.notes.push_back({Severity::Note, user->loc,
                         std::string(user->kind == OpKind::Copy ? "it is still copied" : "it is still used") + " here (" +
                             user->origin + ")",
                         "",
                         {}});
      d.hint = "map `" + tname + "` (or the launches that use it) to REGISTER or SHARED in the instance's mem(...) so "
               "that it has a place to live";
      throw CompileError(std::move(d));
    }
  }

  Function& f_;
};

}  // namespace

void eliminate_copies(ir::Function& f) { CopyEliminator(f).run(); }

}  // namespace loom
