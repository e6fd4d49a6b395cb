// Warp specialization and software pipelining. See warp_specialize.h.
#include "passes/warp_specialize.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "loom/diagnostics.h"

namespace loom {

namespace {

using ir::Block;
using ir::EventRef;
using ir::Function;
using ir::Op;
using ir::OpKind;
using ir::Role;
using ir::Type;
using ir::ValueId;
using ir::ValueInfo;

constexpr int64_t kDmaRegs = 40;  // registers per producer thread (see the header, 4. REGISTER SPLIT)

bool is_dma_copy(const Function& f, const Op& op) {
  return op.kind == OpKind::Copy && op.name.empty() && op.operands.size() == 2 &&
         f.info(op.operands[0]).mem == MemKind::Global && f.info(op.operands[1]).mem == MemKind::Shared;
}

bool is_loop(const Op& op) { return op.kind == OpKind::For || op.kind == OpKind::PFor; }

// ---- facts about one loop body ---------------------------------------------------------------------

// Where the values of a `for` body are defined, which loops of the body enclose each op, and the
// happens-before queries the rewrites below need. Built before a rewrite; a structural change
// (ops inserted or erased) makes it stale.
class LoopFacts {
 public:
  LoopFacts(Function& f, Op& loop) : f_(f), loop_(loop) {
    std::function<void(Block&)> scan = [&](Block& b) {
      for (Op& op : b.ops) {
        if (op.result != ir::kNone) def_[op.result] = &op;
        for (Block& r : op.regions) scan(r);
      }
    };
    scan(f_.body);
    std::vector<Op*> loops;
    std::function<void(Block&)> index = [&](Block& b) {
      for (ValueId a : b.args) inside_.insert(a);
      for (Op& op : b.ops) {
        if (op.result != ir::kNone) inside_.insert(op.result);
        enclosing_[&op] = loops;
        ordered_.push_back(&op);
        loops.push_back(&op);
        for (Block& r : op.regions) index(r);
        loops.pop_back();
      }
    };
    index(loop.regions.at(0));
  }

  Block& body() { return loop_.regions.at(0); }
  bool inside(ValueId v) const { return inside_.count(v) > 0; }
  Op* def(ValueId v) const {
    auto d = def_.find(v);
    return d == def_.end() ? nullptr : d->second;
  }
  // The loops of the body around `op`, outermost first (empty: a top-level op).
  const std::vector<Op*>& enclosing(const Op* op) const { return enclosing_.at(op); }

  // Whether value `v` may differ between iterations: it depends on the induction variable or on an
  // op of the body that is not an immediate op of loop-invariant operands.
  bool varies(ValueId v, int fuel = 64) const {
    if (!inside(v)) return false;
    const Op* d = def(v);
    if (!d || fuel == 0 || is_async(d->kind) || d->kind == OpKind::Alloc || d->kind == OpKind::ProcIndex) return true;
    for (ValueId x : d->operands)
      if (varies(x, fuel - 1)) return true;
    for (ValueId x : d->part.block)
      if (x != ir::kNone && varies(x, fuel - 1)) return true;
    return false;
  }

  // The asynchronous ops of the body (any depth, program order) with an operand that is `t` or a
  // view cut from it.
  std::vector<Op*> accessors(ValueId t) const {
    std::unordered_set<ValueId> views{t};
    std::vector<Op*> out;
    for (Op* op : ordered_) {
      if (op->kind == OpKind::Piece && !op->operands.empty() && views.count(op->operands[0])) views.insert(op->result);
      if (is_async(op->kind) && std::any_of(op->operands.begin(), op->operands.end(), [&](ValueId v) { return views.count(v) > 0; }))
        out.push_back(op);
    }
    return out;
  }

  // Every instance of `a` starts after event `x` (an op's single event, or a carried event)
  // completed, by the preconditions of `a` and of the loops around it in the body (transitively).
  bool waits_for(const Op* a, ValueId x) const {
    std::vector<const EventRef*> work;
    std::unordered_set<ValueId> seen;
    auto push_op = [&](const Op* op) {
      for (const EventRef& r : op->after) work.push_back(&r);
      for (const Op* l : enclosing(op))
        for (const EventRef& r : l->after) work.push_back(&r);
    };
    push_op(a);
    while (!work.empty()) {
      const EventRef* r = work.back();
      work.pop_back();
      if (r->value == x) return true;
      if (!seen.insert(r->value).second || !inside(r->value)) continue;
      const Op* y = def(r->value);
      if (y && is_async(y->kind)) push_op(y);  // other carried events (no def): nothing known
    }
    return false;
  }

  // Whether the yield of `b` (the body or a loop body inside it) waits for every instance of `op`.
  bool covered(const Block* b, const Op* op) {
    auto [it, fresh] = covered_.try_emplace(b);
    if (fresh) cover(b->yield, nullptr, it->second);
    return it->second.count(op) > 0;
  }
  // Records that the yield of `b` now also waits for every instance of `op`.
  void add_cover(const Block* b, const Op* op) {
    covered(b, op);
    cover(all_of(op), nullptr, covered_[b]);
  }

  // A reference to every element of `op`'s event.
  EventRef all_of(const Op* op) const {
    EventRef r{op->result, {}};
    if (f_.info(op->result).type == Type::Events) r.indices.assign(f_.info(op->result).event_dims.size(), ir::kNone);
    return r;
  }

 private:
  // Whether `r`, waited for by every instance of `ctx` (nullptr: a yield), names every element of
  // its event: a single event, `:`, or the processor index of a dimension `ctx` runs over.
  bool all_elements(const EventRef& r, const Op* ctx) const {
    if (f_.info(r.value).type != Type::Events) return true;
    for (ValueId i : r.indices) {
      if (i == ir::kNone) continue;
      const Op* p = def(i);
      if (!ctx || !p || p->kind != OpKind::ProcIndex || ctx->result == ir::kNone ||
          f_.info(ctx->result).type != Type::Events)
        return false;
      const std::vector<ProcKind>& dims = f_.info(ctx->result).event_dims;
      if (std::find(dims.begin(), dims.end(), p->proc) == dims.end()) return false;
    }
    return true;
  }

  // Adds to `set` the body ops every instance of which completes before `r` (waited for by every
  // instance of `ctx`) does.
  void cover(const EventRef& r, const Op* ctx, std::set<const Op*>& set) const {
    if (r.value == ir::kNone || !inside(r.value)) return;
    const Op* y = def(r.value);
    if (!y || !is_async(y->kind) || !all_elements(r, ctx) || !set.insert(y).second) return;
    for (const EventRef& p : y->after) cover(p, y, set);
    if (is_loop(*y)) cover(y->regions.at(0).yield, nullptr, set);  // its completion: every iteration's yield
  }

  Function& f_;
  Op& loop_;
  std::unordered_map<ValueId, Op*> def_;
  std::unordered_set<ValueId> inside_;                       // defined in the body (any depth)
  std::unordered_map<const Op*, std::vector<Op*>> enclosing_;
  std::vector<Op*> ordered_;                                 // the body's ops, any depth, program order
  std::map<const Block*, std::set<const Op*>> covered_;      // per block: ops its yield waits for
};

// ---- 1. pipelining of one loop -------------------------------------------------------------------------

// A ring buffer a pipelined loop of a block made (1, shared rings): what a later loop of the same
// block needs to know to take it over.
struct RingBuffer {
  ValueId buffer = ir::kNone;   // the hoisted [D, bounds...] alloc
  DType dtype = DType::F32;
  ir::TileLayout layout;
  std::vector<int64_t> bounds;  // the constant bounds of the slot
  int64_t depth = 1;
  bool warp_specialize = false;
  ValueId loop = ir::kNone;     // the event of the loop that made it
};

class Pipeliner {
 public:
  // `earlier`: the rings of the block's previous pipelined loop (shared rings, below).
  Pipeliner(Function& f, Block& parent, size_t at, const std::vector<RingBuffer>& earlier)
      : f_(f), parent_(parent), at_(at), facts_(f, parent.ops[at]), earlier_(earlier) {}

  // The ring buffers of the loop after run() (its own, or the ones it took over).
  const std::vector<RingBuffer>& made() const { return made_; }

  // Pipelines the loop: returns the tensors that became ring slots; `inserted` is how many ops
  // went before the loop.
  std::vector<ValueId> run(size_t& inserted) {
    Block& body = loop().regions.at(0);
    std::map<ValueId, int> writers;  // DMA copies into each tensor (two: T stays as it is)
    for (const Op& x : body.ops)
      if (is_dma_copy(f_, x)) ++writers[x.operands[1]];
    std::vector<Ring> rings;
    for (size_t i = 0; i < body.ops.size(); ++i) {
      const Op& x = body.ops[i];
      if (!is_dma_copy(f_, x) || x.result == ir::kNone || f_.info(x.result).type != Type::Event) continue;
      const Op* alloc = facts_.def(x.operands[1]);
      if (!alloc || alloc->kind != OpKind::Alloc || !facts_.enclosing(alloc).empty() || writers[x.operands[1]] != 1) continue;
      if (!facts_.varies(x.operands[0])) continue;  // the same tile every iteration: not a stream to pipeline
      if (std::optional<Ring> r = plan(x, i, *alloc)) rings.push_back(std::move(*r));
    }
    inserted = 0;
    if (rings.empty()) return {};
    std::vector<ValueId> shared = share(rings);
    apply(rings, loop().pipeline_depth, shared);
    inserted = pre_.size();
    std::vector<ValueId> out;
    for (const Ring& r : rings) out.push_back(r.tensor);
    return out;
  }

 private:
  struct Ring {
    ValueId tensor = ir::kNone;   // T
    size_t alloc_index = 0;       // T's alloc in the body
    size_t copy_index = 0;        // X in the body
    std::vector<ValueId> bounds;  // per extent of T, defined before the loop
    bool exact = true;            // the bounds are T's extents in every iteration
    std::vector<int64_t> consts;  // the bounds' values where all are constants (else empty)
  };
  struct Bound {
    ValueId v = ir::kNone;
    bool exact = false;
    bool constant = false;
  };

  Op& loop() { return parent_.ops[at_]; }

  ValueId hoist(Op op, ValueInfo info) {
    op.result = f_.add_value(std::move(info));
    op.loc = loop().loc;
    ValueId v = op.result;
    pre_.push_back(std::move(op));
    return v;
  }
  ValueId hoist_const(int64_t c) {
    auto it = consts_.find(c);
    if (it != consts_.end()) return it->second;
    const std::string name = "c" + std::to_string(c);
    for (size_t i = 0; i < at_; ++i)  // an unnamed constant (not a tunable like %G) the block already has
      if (const Op& x = parent_.ops[i]; x.kind == OpKind::Const && x.ival == c && x.result != ir::kNone && f_.info(x.result).name == name)
        return consts_[c] = x.result;
    Op op;
    op.kind = OpKind::Const;
    op.ival = c;
    return consts_[c] = hoist(std::move(op), ValueInfo{Type::Index, name});
  }
  ValueId hoist_dim(ValueId t, int64_t d) {
    auto key = std::make_pair(t, d);
    auto it = dims_.find(key);
    if (it != dims_.end()) return it->second;
    Op op;
    op.kind = OpKind::Dim;
    op.operands = {t};
    op.ival = d;
    return dims_[key] = hoist(std::move(op), ValueInfo{Type::Index, "ext"});
  }

  // An upper bound of index `v` in every iteration, usable before the loop; a constant if one is
  // found through dims, pieces and allocs, else an exact extent of a tensor defined before the loop.
  std::optional<Bound> bound(ValueId v, int fuel = 32) {
    if (fuel == 0) return std::nullopt;
    const Op* d = facts_.def(v);
    const bool outer = !facts_.inside(v);
    std::optional<Bound> best;
    if (d && d->kind == OpKind::Const) return Bound{outer ? v : hoist_const(d->ival), true, true};
    if (d && d->kind == OpKind::Dim) {
      best = extent_bound(d->operands.at(0), d->ival, fuel - 1);
    } else if (d && d->kind == OpKind::Arith && d->name == "min") {
      for (ValueId x : d->operands)
        if (std::optional<Bound> b = bound(x, fuel - 1); b && (!best || (b->constant && !best->constant)))
          best = Bound{b->v, false, b->constant};
    }
    if (best && best->constant) return best;
    if (outer) return Bound{v, true, false};
    return best;
  }
  std::optional<Bound> extent_bound(ValueId t, int64_t dim, int fuel) {
    if (fuel == 0) return std::nullopt;
    const Op* d = facts_.def(t);
    std::optional<Bound> cand;
    if (d && d->kind == OpKind::Piece && !d->operands.empty()) {
      const ir::PartitionSpec& p = d->part;
      if (p.kind == ir::PartitionSpec::Kind::Blocks && static_cast<size_t>(dim) < p.block.size()) {
        ValueId blk = p.block[static_cast<size_t>(dim)];
        if (blk == ir::kNone) {
          cand = extent_bound(d->operands[0], dim, fuel - 1);  // `*`: the whole dimension
        } else if (std::optional<Bound> b = bound(blk, fuel - 1)) {
          cand = Bound{b->v, false, b->constant};  // clipped at the edge
        }
      } else if (p.kind == ir::PartitionSpec::Kind::Slices) {
        cand = extent_bound(d->operands[0], dim < p.dim ? dim : dim + 1, fuel - 1);
      }
    } else if (d && d->kind == OpKind::Alloc && static_cast<size_t>(dim) < d->operands.size()) {
      cand = bound(d->operands[static_cast<size_t>(dim)], fuel - 1);
    }
    if (cand && cand->constant) return cand;
    if (!facts_.inside(t)) return Bound{hoist_dim(t, dim), true, false};
    return cand;
  }

  std::optional<Ring> plan(const Op& x, size_t copy_index, const Op& alloc) {
    Ring ring;
    ring.tensor = alloc.result;
    ring.copy_index = copy_index;
    const Block& body = loop().regions.at(0);
    for (size_t i = 0; i < body.ops.size(); ++i)
      if (&body.ops[i] == &alloc) ring.alloc_index = i;
    for (const Op* a : facts_.accessors(alloc.result))
      if (a != &x && !facts_.waits_for(a, x.result)) return std::nullopt;  // slot k could be used before its copy
    // Bounds last: they may hoist ops, which a refused ring must not leave behind.
    const size_t hoisted = pre_.size();
    const auto consts = consts_;
    const auto dims = dims_;
    for (ValueId e : alloc.operands) {
      std::optional<Bound> b = bound(e);
      if (!b) {
        pre_.resize(hoisted);
        consts_ = consts;
        dims_ = dims;
        return std::nullopt;
      }
      ring.bounds.push_back(b->v);
      ring.exact = ring.exact && b->exact;
      const Op* c = b->constant ? def_anywhere(b->v) : nullptr;
      if (c && c->kind == OpKind::Const) ring.consts.push_back(c->ival);
    }
    if (ring.consts.size() != ring.bounds.size()) ring.consts.clear();
    return ring;
  }

  // A constant's defining op: in the body or the block (facts_), or hoisted by this pipeliner.
  const Op* def_anywhere(ValueId v) const {
    if (const Op* d = facts_.def(v)) return d;
    for (const Op& op : pre_)
      if (op.result == v) return &op;
    return nullptr;
  }

  // SHARED RINGS. Two consecutive pipelined loops of one block (examples/add_gemm: a K loop over
  // A, B, then an L loop over C, D into the same accumulator) would each get rings of their own,
  // though the second runs after the first: twice the shared memory for buffers used one after
  // the other. When every ring this loop needs matches a distinct ring of the block's previous
  // pipelined loop — same element type, layout, constant slot bounds, pipeline depth and warp
  // specialization, and as many rings — this loop takes those buffers over instead of hoisting
  // its own. Its copy into slot l mod D then also overwrites what the previous loop read there,
  // so each such copy waits for the previous loop's whole event (added unless the loop already
  // waits for it; the event IR cannot name one iteration of a finished loop, so iteration l < D
  // waits for all of it, not only for the iteration that last read the slot). Returns the buffer
  // for each ring, or an empty list when the rings are not shared.
  std::vector<ValueId> share(const std::vector<Ring>& rings) {
    const Op& L = loop();
    if (earlier_.empty() || earlier_.size() != rings.size()) return {};
    std::vector<ValueId> out;
    std::set<size_t> taken;
    for (const Ring& r : rings) {
      const ValueInfo ti = f_.info(r.tensor);
      const Op& alloc = L.regions[0].ops[r.alloc_index];
      size_t pick = earlier_.size();
      for (size_t j = 0; j < earlier_.size() && pick == earlier_.size(); ++j) {
        const RingBuffer& e = earlier_[j];
        if (!taken.count(j) && !r.consts.empty() && e.dtype == ti.dtype && e.layout == alloc.layout &&
            e.bounds == r.consts && e.depth == L.pipeline_depth && e.warp_specialize == L.warp_specialize)
          pick = j;
      }
      if (pick == earlier_.size()) return {};
      taken.insert(pick);
      out.push_back(earlier_[pick].buffer);
    }
    // The previous loop's rings are now this loop's: the hoisted bounds are not needed.
    pre_.clear();
    consts_.clear();
    dims_.clear();
    const ValueId previous = earlier_.front().loop;
    const bool waits = std::any_of(L.after.begin(), L.after.end(), [&](const EventRef& e) { return e.value == previous; });
    Block& body = loop().regions[0];
    for (const Ring& r : rings)
      if (!waits) body.ops[r.copy_index].after.push_back(EventRef{previous, {}});
    return out;
  }

  void apply(std::vector<Ring>& rings, int64_t depth, const std::vector<ValueId>& shared) {
    const ValueId stages = hoist_const(depth);
    ValueId zero = ir::kNone;
    for (const Ring& r : rings)
      if (!r.exact) zero = hoist_const(0);
    // The rings: [D, bounds...] before the loop (or the previous loop's, shared).
    std::vector<ValueId> buffers = shared;
    for (const Ring& r : rings) {
      if (!shared.empty()) break;
      const Op& alloc = loop().regions[0].ops[r.alloc_index];
      Op op;
      op.kind = OpKind::Alloc;
      op.mem = MemKind::Shared;
      op.dtype = alloc.dtype;
      op.layout = alloc.layout;
      op.name = alloc.name;
      op.origin = alloc.origin;
      op.operands = {stages};
      op.operands.insert(op.operands.end(), r.bounds.begin(), r.bounds.end());
      const ValueInfo ti = f_.info(r.tensor);
      buffers.push_back(hoist(std::move(op), ValueInfo{Type::Tensor, ti.name + "_stages", ti.dtype, MemKind::Shared, ti.rank + 1, {}}));
    }
    for (size_t i = 0; i < rings.size(); ++i) {
      const Op& alloc = loop().regions[0].ops[rings[i].alloc_index];
      made_.push_back(RingBuffer{buffers[i], f_.info(rings[i].tensor).dtype, alloc.layout, rings[i].consts, depth,
                                 loop().warp_specialize, loop().result});
    }

    Op& L = loop();
    Block& body = L.regions[0];
    const ValueId k = body.args.at(0);
    // The distance-D carried event: iteration k - D's completion.
    const ValueId free = f_.add_value(ValueInfo{Type::Event, "w"});
    if (L.distances.empty()) L.distances.assign(body.args.size() - 1, 1);
    body.args.push_back(free);
    L.distances.push_back(depth);
    for (const Ring& r : rings)  // before any op moves: the copy into slot k waits for iteration k-D
      body.ops[r.copy_index].after.push_back(EventRef{free, {}});

    // Replace each T's alloc by its slot (from the back, so indices stay valid).
    std::vector<size_t> order(rings.size());
    for (size_t i = 0; i < rings.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rings[a].alloc_index > rings[b].alloc_index; });
    ValueId slot = f_.add_value(ValueInfo{Type::Index, "slot"});
    for (size_t i : order) {
      const Ring& r = rings[i];
      const Op old = body.ops[r.alloc_index];
      const ValueInfo ti = f_.info(r.tensor);
      std::vector<Op> repl;
      Op piece;
      piece.kind = OpKind::Piece;
      piece.part.kind = ir::PartitionSpec::Kind::Slices;
      piece.part.dim = 0;
      piece.operands = {buffers[i], slot};
      piece.loc = old.loc;
      if (r.exact) {
        piece.result = r.tensor;
        repl.push_back(std::move(piece));
      } else {
        piece.result = f_.add_value(ValueInfo{Type::Tensor, ti.name + "_slot", ti.dtype, MemKind::Shared, ti.rank, {}});
        Op cut;
        cut.kind = OpKind::Piece;
        cut.part.kind = ir::PartitionSpec::Kind::Blocks;
        cut.part.block = old.operands;  // this iteration's extents
        cut.operands = {piece.result};
        cut.operands.insert(cut.operands.end(), old.operands.size(), zero);
        cut.result = r.tensor;
        cut.loc = old.loc;
        repl.push_back(std::move(piece));
        repl.push_back(std::move(cut));
      }
      body.ops.erase(body.ops.begin() + static_cast<std::ptrdiff_t>(r.alloc_index));
      body.ops.insert(body.ops.begin() + static_cast<std::ptrdiff_t>(r.alloc_index), repl.begin(), repl.end());
    }
    Op mod;
    mod.kind = OpKind::Arith;
    mod.name = "mod";
    mod.operands = {k, stages};
    mod.result = slot;
    mod.loc = L.loc;
    body.ops.insert(body.ops.begin(), std::move(mod));
    parent_.ops.insert(parent_.ops.begin() + static_cast<std::ptrdiff_t>(at_), pre_.begin(), pre_.end());
  }

  Function& f_;
  Block& parent_;
  size_t at_;
  LoopFacts facts_;
  std::vector<Op> pre_;  // ops to insert before the loop
  std::map<int64_t, ValueId> consts_;
  std::map<std::pair<ValueId, int64_t>, ValueId> dims_;
  const std::vector<RingBuffer>& earlier_;
  std::vector<RingBuffer> made_;
};

// ---- 2. the shared buffers of a loop body, one iteration at a time ----------------------------------------

// Every SHARED buffer a `for` body uses is one buffer on the GPU (resource_allocation.h), though
// the IR makes a fresh one per iteration. A ring slot (`rings`) is reused by iteration k + D: its
// copy waits for the distance-D event, so every access of iteration k must complete before
// iteration k's yield. Any other SHARED alloc at the top of the body is reused by iteration k + 1:
// every access must also wait (transitively) for the distance-1 carried event. Missing waits are
// added to the first accesses; a yield that does not wait for an access is extended with a join
// (in each loop body between the access and this one).
void order_buffers(Function& f, Op& loop, const std::vector<ValueId>& rings) {
  Block& body = loop.regions.at(0);
  ValueId previous = ir::kNone;  // the distance-1 carried event
  for (size_t j = 0; j + 1 < body.args.size() && previous == ir::kNone; ++j)
    if (ir::carried_distance(loop, j) == 1) previous = body.args[j + 1];
  LoopFacts facts(f, loop);
  std::vector<ValueId> single;
  for (const Op& op : body.ops)
    if (op.kind == OpKind::Alloc && op.mem == MemKind::Shared && op.result != ir::kNone) single.push_back(op.result);
  if (previous == ir::kNone) single.clear();  // nothing to order by (no pass makes such a loop)

  struct Extension {
    size_t depth;
    std::vector<EventRef> refs;
    const Op* owner;  // the loop whose body it is
  };
  std::map<Block*, Extension> joins;
  auto must_finish = [&](Op* a) {
    if (facts.covered(&body, a)) return;
    const std::vector<Op*>& chain = facts.enclosing(a);
    for (size_t i = chain.size() + 1; i-- > 0;) {  // the op at each level, from a's block outward
      Op* op = i == chain.size() ? a : chain[i];
      Block* b = i == 0 ? &body : &chain[i - 1]->regions.at(0);
      if (facts.covered(b, op)) continue;
      Extension& x = joins.try_emplace(b, Extension{i, {}, i == 0 ? &loop : chain[i - 1]}).first->second;
      x.refs.push_back(facts.all_of(op));
      facts.add_cover(b, op);
    }
  };
  for (ValueId t : single)
    for (Op* a : facts.accessors(t)) {
      if (!facts.waits_for(a, previous)) a->after.push_back(EventRef{previous, {}});
      must_finish(a);
    }
  for (ValueId t : rings)
    for (Op* a : facts.accessors(t)) must_finish(a);

  // Deepest blocks first: extending a block moves only the blocks inside it.
  std::vector<std::pair<Block*, Extension*>> order;
  for (auto& [b, x] : joins) order.emplace_back(b, &x);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second->depth > b.second->depth; });
  for (auto& [b, x] : order) {
    Op j;
    j.kind = OpKind::Join;
    j.result = f.add_value(ValueInfo{Type::Event, "y"});
    if (b->yield.value != ir::kNone) j.after.push_back(b->yield);
    j.after.insert(j.after.end(), x->refs.begin(), x->refs.end());
    j.loc = x->owner->loc;
    j.origin = x->owner->origin;
    b->yield = EventRef{j.result, {}};
    b->ops.push_back(std::move(j));
  }
}

// Pipelines (1) and orders (2) every `for` of `b`, innermost first.
void lower_loops(Function& f, Block& b) {
  std::vector<RingBuffer> previous;  // the rings of the block's last pipelined loop (shared rings)
  for (size_t i = 0; i < b.ops.size(); ++i) {
    for (Block& r : b.ops[i].regions) lower_loops(f, r);
    if (b.ops[i].kind != OpKind::For) continue;
    size_t inserted = 0;
    std::vector<ValueId> rings;
    if (b.ops[i].pipeline_depth > 1) {
      Pipeliner p(f, b, i, previous);
      rings = p.run(inserted);
      previous = p.made();
    }
    i += inserted;
    order_buffers(f, b.ops[i], rings);
  }
}

// ---- 3. roles -----------------------------------------------------------------------------------------

// Roles as sets of warps: bit 0 the DMA warpgroup, bit 1 the compute warpgroups.
constexpr int kDma = 1, kCompute = 2, kBoth = 3;
int mask(Role r) { return r == Role::Dma ? kDma : r == Role::Compute ? kCompute : kBoth; }
Role role_of(int m) { return m == kDma ? Role::Dma : m == kCompute ? Role::Compute : Role::Any; }

// The kernel scopes: the body of the innermost pfor BLOCK around each warp-specialized loop.
// Returns whether `b` holds such a loop that no pfor BLOCK inside `b` claimed.
bool find_scopes(Block& b, std::vector<Block*>& out) {
  bool open = false;
  for (Op& op : b.ops) {
    if (op.kind == OpKind::For && op.warp_specialize) open = true;
    for (Block& r : op.regions) {
      if (!find_scopes(r, out)) continue;
      if (op.kind == OpKind::PFor && op.proc == ProcKind::Block) out.push_back(&r);
      else open = true;
    }
  }
  return open;
}

class RolePartition {
 public:
  explicit RolePartition(Function& f) : f_(f) {}

  void run(Block& scope) {
    assign(scope);
    index(scope, nullptr);
    mark(scope);
  }

 private:
  // Sets the role of every asynchronous op of `b`; returns the union of their roles (0: none).
  int assign(Block& b) {
    int all = 0;
    for (Op& op : b.ops) {
      if (!is_async(op.kind)) continue;
      int m = kCompute;
      if (is_dma_copy(f_, op)) {
        m = kDma;
      } else if (is_loop(op)) {
        int inner = assign(op.regions.at(0));
        m = inner == 0 ? kCompute : inner;
      }
      op.role = role_of(m);
      all |= m;
    }
    return all;
  }

  void index(const Block& b, const Op* loop) {
    if (loop && loop->kind == OpKind::For)
      for (size_t j = 1; j < b.args.size(); ++j) carried_[b.args[j]] = loop;
    for (const Op& op : b.ops) {
      if (op.result != ir::kNone && is_async(op.kind)) def_[op.result] = &op;
      for (const Block& r : op.regions) index(r, &op);
    }
  }

  // The roles that produce event `v` (0: not in the scope). A loop's event and its carried events
  // are produced by whoever produces its body's yield.
  int producer(ValueId v, int fuel = 16) const {
    if (fuel == 0) return kBoth;
    const Op* loop = nullptr;
    if (auto c = carried_.find(v); c != carried_.end()) {
      loop = c->second;
    } else if (auto d = def_.find(v); d != def_.end()) {
      if (!is_loop(*d->second)) return mask(d->second->role);
      loop = d->second;
    } else {
      return 0;
    }
    const EventRef& y = loop->regions.at(0).yield;
    if (y.value == ir::kNone) return kBoth;  // completes with the loop's start: both roles see it
    int p = producer(y.value, fuel - 1);
    return p == 0 ? kBoth : p;
  }

  void mark(Block& b) {
    for (Op& op : b.ops) {
      const int consumer = mask(op.role);
      for (EventRef& r : op.after) {
        int p = producer(r.value);
        r.cross = p != 0 && (consumer & ~p) != 0;
      }
      for (Block& r : op.regions) mark(r);
    }
  }

  Function& f_;
  std::unordered_map<ValueId, const Op*> def_;
  std::unordered_map<ValueId, const Op*> carried_;
};

}  // namespace

// The block's register pool is what it gets at launch: every thread the same count, the register
// file shared evenly and rounded down to the allocation step (640 threads get 96 registers each,
// 61440 in all, not 65536), and setmaxnreg only moves registers within it (an increase beyond it
// waits forever).
int64_t regs_at_launch(int64_t warpgroups, const Machine& m) {
  const ProcLevel* wg = m.level(ProcKind::Warpgroup);
  const Limits& l = m.limits;
  if (!wg || wg->threads <= 0 || l.setmaxnreg_step <= 0 || warpgroups <= 0) return 0;
  const int64_t at_launch = std::min<int64_t>(l.regs_per_thread, l.regs_per_sm / (warpgroups * wg->threads));
  return at_launch / l.setmaxnreg_step * l.setmaxnreg_step;
}

int64_t register_pool(int64_t warpgroups, const Machine& m) { return regs_at_launch(warpgroups, m) * warpgroups; }

int64_t compute_regs_left(int64_t dma_regs, int64_t dma_warpgroups, int64_t compute_warpgroups, const Machine& m) {
  const Limits& l = m.limits;
  if (l.setmaxnreg_step <= 0 || compute_warpgroups <= 0) return 0;
  const int64_t pool = register_pool(dma_warpgroups + compute_warpgroups, m);
  const int64_t share = (pool - dma_warpgroups * dma_regs) / compute_warpgroups / l.setmaxnreg_step * l.setmaxnreg_step;
  return std::min<int64_t>(l.setmaxnreg_max, share);
}

ir::WarpRoles warp_roles_for(int64_t compute_warpgroups, const Machine& m) {
  ir::WarpRoles w;
  w.dma_warpgroups = 1;
  w.compute_warpgroups = std::max<int64_t>(1, compute_warpgroups);
  const ProcLevel* wg = m.level(ProcKind::Warpgroup);
  const Limits& l = m.limits;
  if (!wg || wg->threads <= 0 || l.setmaxnreg_step <= 0) return w;  // no per-warpgroup registers
  auto step_down = [&](int64_t r) { return r / l.setmaxnreg_step * l.setmaxnreg_step; };
  const int64_t dma = std::clamp<int64_t>(step_down(kDmaRegs), l.setmaxnreg_min, l.setmaxnreg_max);
  const int64_t compute = compute_regs_left(dma, w.dma_warpgroups, w.compute_warpgroups, m);
  if (compute < l.setmaxnreg_min) return w;  // too many warpgroups to split (the mapping allows at most 4)
  w.dma_regs = dma;
  w.compute_regs = compute;
  return w;
}

void warp_specialize(ir::Function& f, const Machine& m) {
  lower_loops(f, f.body);
  std::vector<Block*> scopes;
  if (find_scopes(f.body, scopes)) scopes.push_back(&f.body);
  for (Block* s : scopes) RolePartition(f).run(*s);
  if (!scopes.empty()) {
    auto wg = f.proc_extents.find(ProcKind::Warpgroup);
    // alternate(T) or kteams(T) on a pipelined loop: T teams of the warpgroups a tile takes (whole
    // tiles in turn, or a share of every tile's K loop); regs(P, C): the register split written on
    // its instance.
    int64_t teams = 1;
    bool k_split = false;
    const Op* split = nullptr;
    ir::for_each_op(f.body, [&](Op& op) {
      if (op.kind != OpKind::For || !op.warp_specialize) return;
      teams = std::max(teams, op.alternate);
      if (op.k_teams > teams) teams = op.k_teams, k_split = true;
      if (op.dma_regs > 0 && !split) split = &op;
    });
    const int64_t per_tile = wg == f.proc_extents.end() ? 1 : wg->second;
    f.warp_roles = warp_roles_for(per_tile * teams, m);
    f.warp_roles->teams = teams;
    f.warp_roles->k_split = k_split;
    // regs(P, C) instead of the rule's split, if the block's pool holds it.
    if (split) {
      ir::WarpRoles& w = *f.warp_roles;
      const int64_t pool = register_pool(w.dma_warpgroups + w.compute_warpgroups, m);
      const int64_t used = w.dma_warpgroups * split->dma_regs + w.compute_warpgroups * split->compute_regs;
      if (used > pool) {
        Diagnostic d;
        d.loc = split->regs_loc.valid() ? split->regs_loc : split->loc;
        d.message = "regs(" + std::to_string(split->dma_regs) + ", " + std::to_string(split->compute_regs) + "): " +
                    std::to_string(w.dma_warpgroups) + " x " + std::to_string(split->dma_regs) + " + " +
                    std::to_string(w.compute_warpgroups) + " x " + std::to_string(split->compute_regs) + " = " +
                    std::to_string(used) + " registers per thread slot, more than the " + std::to_string(pool) + " the block's " +
                    std::to_string(w.dma_warpgroups + w.compute_warpgroups) + " warpgroups get at launch";
        const int64_t fits = compute_regs_left(split->dma_regs, w.dma_warpgroups, w.compute_warpgroups, m);
        d.hint = fits >= m.limits.setmaxnreg_min
                     ? "regs(" + std::to_string(split->dma_regs) + ", " + std::to_string(fits) +
                           ") fits: the compute warpgroups share what the DMA warpgroup leaves"
                     : "give the DMA warpgroup fewer registers, or use fewer compute warpgroups";
        throw CompileError(std::move(d));
      }
      w.dma_regs = split->dma_regs;
      w.compute_regs = split->compute_regs;
    }
  }
}

}  // namespace loom
