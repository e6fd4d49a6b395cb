// Resource allocation: shared-memory slots for the SHARED tensors of each thread block, and the
// write-after-read edges between tensors that share bytes. See resource_allocation.h.
#include "passes/resource_allocation.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

#include "passes/bounds.h"
#include "passes/register_residents.h"

namespace loom {
namespace {

using ir::Block;
using ir::EventRef;
using ir::Function;
using ir::Op;
using ir::OpKind;
using ir::Type;
using ir::ValueId;

int64_t align_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

// The carried events of a `for` body that chain each iteration to the previous one (distance 1).
std::vector<ValueId> chained_events(const Op& loop) {
  std::vector<ValueId> out;
  if (loop.kind != OpKind::For || loop.regions.empty()) return out;
  const std::vector<ValueId>& args = loop.regions[0].args;
  for (size_t j = 0; j + 1 < args.size(); ++j)
    if (ir::carried_distance(loop, j) == 1) out.push_back(args[j + 1]);
  return out;
}

bool is_vectorized_for(const Function& f, const Op& op) {
  return op.kind == OpKind::For && op.result != ir::kNone && f.info(op.result).type == Type::Events;
}

// The processors an op runs once per (a vectorized copy, call, join or for); none for a pfor, whose
// event array has one element per iteration, and for every other op.
std::vector<ProcKind> instance_dims(const Function& f, const Op& op) {
  if (op.kind == OpKind::PFor || op.result == ir::kNone || f.info(op.result).type != Type::Events) return {};
  return f.info(op.result).event_dims;
}

// The structure of the function: which block holds which op, which loop owns which block.
class Tree {
 public:
  explicit Tree(Function& f) {
    int pos = 0;
    std::function<void(Block&, Block*)> scan = [&](Block& b, Block* parent) {
      parent_[&b] = parent;
      for (Op& op : b.ops) {
        block_[&op] = &b;
        pos_[&op] = pos++;
        if (op.result != ir::kNone) def_[op.result] = &op;
        for (Block& r : op.regions) {
          owner_[&r] = &op;
          scan(r, &b);
        }
      }
    };
    scan(f.body, nullptr);
  }

  Block* block_of(const Op* op) const { return block_.at(op); }
  Op* owner(const Block* b) const {
    auto it = owner_.find(b);
    return it == owner_.end() ? nullptr : it->second;
  }
  Block* parent(const Block* b) const { return parent_.at(b); }
  const Op* def(ValueId v) const {
    auto it = def_.find(v);
    return it == def_.end() ? nullptr : it->second;
  }
  int pos(const Op* op) const { return pos_.at(op); }

  // The op of block `b` that is `op` or holds it in a loop body (`b` must enclose `op`).
  Op* summary(Op* op, const Block* b) const {
    while (block_of(op) != b) {
      Op* up = owner(block_of(op));
      LOOM_ASSERT(up, "resource allocation: block does not enclose op");
      op = up;
    }
    return op;
  }

  bool encloses(const Block* outer, const Block* b) const {
    for (; b; b = parent(b))
      if (b == outer) return true;
    return false;
  }

 private:
  std::unordered_map<const Op*, Block*> block_;
  std::unordered_map<const Block*, Op*> owner_;
  std::unordered_map<const Block*, Block*> parent_;
  std::unordered_map<ValueId, Op*> def_;
  std::unordered_map<const Op*, int> pos_;
};

// The event graph of one block: its asynchronous ops, the carried event of a `for` body (node 0)
// and the yield (the last node), with the `after` references (and the yield's) between them.
// full(a, b): every instance of b waits, transitively, for every instance of a — along a path of
// references that reach every instance of their source (`onto`), then one full reference (a plain
// event, or every index `:`), then any references (each reaches at least one instance).
class EventGraph {
 public:
  static constexpr int kCarried = 0;

  EventGraph(const Function& f, const Tree& tree, const Block& b) {
    Op* loop = tree.owner(&b);
    // Carried events of a longer distance (a pipelined loop's ring-buffer edge) order nothing here.
    const std::vector<ValueId> chained = loop ? chained_events(*loop) : std::vector<ValueId>{};
    auto is_chained = [&](ValueId v) { return v != ir::kNone && std::find(chained.begin(), chained.end(), v) != chained.end(); };
    std::unordered_map<ValueId, int> by_value;
    int n = 1;
    for (const Op& op : b.ops)
      if (is_async(op.kind)) {
        index_[&op] = n;
        if (op.result != ir::kNone) by_value[op.result] = n;
        ++n;
      }
    yield_ = n;
    in_.resize(static_cast<size_t>(n + 1));
    auto add = [&](int to, const EventRef& r, const std::vector<ProcKind>& dims) {
      int from = -1;
      if (is_chained(r.value)) from = kCarried;
      if (auto it = by_value.find(r.value); it != by_value.end()) from = it->second;
      if (from < 0) return;  // an event from outside the block: no order within it
      Edge e{from, true, true};
      if (from != kCarried && f.info(r.value).type == Type::Events) {
        const std::vector<ProcKind>& ed = f.info(r.value).event_dims;
        for (size_t i = 0; i < r.indices.size(); ++i) {
          ValueId x = r.indices[i];
          if (x == ir::kNone) continue;
          e.full = false;
          const Op* d = tree.def(x);
          bool per_proc = d && d->kind == OpKind::ProcIndex && i < ed.size() && d->proc == ed[i] &&
                          std::find(dims.begin(), dims.end(), d->proc) != dims.end();
          if (!per_proc) e.onto = false;
        }
      }
      in_[static_cast<size_t>(to)].push_back(e);
    };
    for (const Op& op : b.ops)
      if (is_async(op.kind))
        for (const EventRef& r : op.after) add(index_.at(&op), r, instance_dims(f, op));
    add(yield_, b.yield, {});
  }

  int node(const Op* op) const { return index_.at(op); }
  int yield() const { return yield_; }

  bool full(int from, int to) {
    auto it = reach_.find(from);
    if (it == reach_.end()) it = reach_.emplace(from, compute(from)).first;
    return it->second[static_cast<size_t>(to)] != 0;
  }

 private:
  struct Edge {
    int from;
    bool full, onto;
  };

  // References point backwards in program order, so one sweep forward finds every path.
  std::vector<char> compute(int src) const {
    const size_t n = in_.size();
    std::vector<char> onto(n, 0), full(n, 0);
    onto[static_cast<size_t>(src)] = 1;
    for (size_t q = static_cast<size_t>(src) + 1; q < n; ++q)
      for (const Edge& e : in_[q]) {
        const size_t p = static_cast<size_t>(e.from);
        if (onto[p] && e.onto) onto[q] = 1;
        if ((onto[p] && e.full) || full[p]) full[q] = 1;
      }
    return full;
  }

  std::unordered_map<const Op*, int> index_;
  int yield_ = 0;
  std::vector<std::vector<Edge>> in_;
  std::unordered_map<int, std::vector<char>> reach_;
};

struct Tensor {
  Op* alloc = nullptr;
  const Op* kernel = nullptr;  // the innermost enclosing pfor BLOCK
  const Block* home = nullptr; // the block of the alloc
  int64_t bytes = 0;           // all copies
  int64_t copies = 1;
  int64_t align = 1;           // of the offset (ir::smem_alignment)
  std::string copies_why;      // "one per WARPGROUP", for the diagnostic
  std::vector<Op*> accesses;   // program order
  int first = 0, last = 0;     // pre-order positions of the first and last access
  ValueId value() const { return alloc->result; }
};

class Allocator {
 public:
  explicit Allocator(Function& f) : f_(f), tree_(f), bounds_(f) {}

  void run() {
    f_.smem_slots.clear();
    collect();
    if (tensors_.empty()) return;
    if (f_.smem.bytes <= 0) LOOM_INTERNAL("resource allocation: SHARED tensors but no shared-memory budget in the function");
    collect_accesses();
    // Tensors the back end keeps in registers take no bytes (register_residents.h).
    const RegisterResidents residents = find_register_residents(f_);
    std::map<const Op*, std::vector<int>> kernels;
    for (size_t i = 0; i < tensors_.size(); ++i) {
      if (residents.contains(tensors_[i].value())) {
        ir::SmemSlot slot;
        slot.registers = true;
        f_.smem_slots[tensors_[i].value()] = slot;
        continue;
      }
      kernels[tensors_[i].kernel].push_back(static_cast<int>(i));
    }
    std::vector<std::pair<Op*, EventRef>> edges;
    for (auto& [kernel, members] : kernels) allocate(members, edges);
    for (auto& [op, ref] : edges) add_after(*op, ref);
  }

  // Phase 1 (see the header, ONE BUFFER PER ALLOC): makes each iteration's accesses of a tensor
  // allocated in a `for` body follow all of the previous iteration's, so that one buffer serves
  // every iteration. Runs before run(), on its own Allocator (it may add ops).
  void serialize_iterations() {
    collect();
    collect_accesses();
    std::vector<std::pair<Op*, EventRef>> adds;
    std::vector<std::pair<Block*, std::vector<EventRef>>> yields;  // in the order found
    auto extend_yield = [&](const Block* b, const EventRef& r) {
      auto it = std::find_if(yields.begin(), yields.end(), [&](const auto& y) { return y.first == b; });
      if (it == yields.end()) it = yields.insert(yields.end(), {const_cast<Block*>(b), {}});
      if (std::find(it->second.begin(), it->second.end(), r) == it->second.end()) it->second.push_back(r);
    };
    for (const Tensor& t : tensors_) {
      if (t.accesses.empty()) continue;
      const Block* kernel_body = &t.kernel->regions.at(0);
      for (const Block* b = t.home; b != kernel_body; b = tree_.parent(b)) {
        Op* loop = tree_.owner(b);
        std::vector<ValueId> chained = chained_events(*loop);
        // A pfor's iterations have buffers of their own (copies); a vectorized for is left alone.
        if (loop->kind != OpKind::For || is_vectorized_for(f_, *loop) || chained.empty()) continue;
        EventGraph& g = graph(b);
        std::set<Op*> ms;
        for (Op* a : t.accesses) ms.insert(tree_.summary(a, b));
        for (Op* m : ms) {
          const int n = g.node(m);
          if (!g.full(n, g.yield())) extend_yield(b, whole(*m));
          bool first = std::none_of(ms.begin(), ms.end(), [&](Op* o) { return o != m && g.full(g.node(o), n); });
          if (first && !g.full(EventGraph::kCarried, n)) {
            EventRef c{chained[0], {}};
            c.cross = (role_mask(m->role) & ~producer_mask(*loop)) != 0;
            adds.push_back({m, c});
          }
        }
      }
    }
    for (auto& [op, ref] : adds) add_after(*op, ref);
    // The new yields, built first and appended last: appending moves a block's ops.
    std::vector<std::pair<Block*, Op>> joins;
    for (auto& [b, refs] : yields) {
      Op j;
      j.kind = OpKind::Join;
      j.result = f_.add_value(ir::ValueInfo{Type::Event, "y"});
      if (b->yield.value != ir::kNone) j.after.push_back(b->yield);
      int producers = 0;
      for (const EventRef& r : refs) {
        if (std::find(j.after.begin(), j.after.end(), r) == j.after.end()) j.after.push_back(r);
        if (const Op* d = tree_.def(r.value)) producers |= producer_mask(*d);
      }
      j.role = producers == 1 ? ir::Role::Dma : producers == 2 ? ir::Role::Compute : ir::Role::Any;
      for (EventRef& r : j.after)
        if (const Op* d = tree_.def(r.value)) r.cross = (role_mask(j.role) & ~producer_mask(*d)) != 0;
      j.loc = tree_.owner(b)->loc;
      j.origin = tree_.owner(b)->origin + " (the iteration ends after its shared tensors' last use)";
      joins.emplace_back(b, std::move(j));
    }
    for (auto& [b, j] : joins) {
      b->yield = EventRef{j.result, {}};
      b->ops.push_back(std::move(j));
    }
  }

 private:
  // A reference to all of op's event (every element of a vectorized op's).
  EventRef whole(const Op& op) const {
    EventRef r{op.result, {}};
    if (f_.info(op.result).type == Type::Events) r.indices.assign(f_.info(op.result).event_dims.size(), ir::kNone);
    return r;
  }

  // Adds `ref` to op's preconditions unless it is there (with or without `cross`).
  static void add_after(Op& op, const EventRef& ref) {
    for (const EventRef& r : op.after)
      if (r.value == ref.value && r.indices == ref.indices) return;
    op.after.push_back(ref);
  }

  // ---- the tensors ----
  void collect() {
    std::vector<const Op*> loops;
    std::function<void(Block&)> walk = [&](Block& b) {
      for (Op& op : b.ops) {
        if (op.kind == OpKind::Alloc && op.mem == MemKind::Shared) add_tensor(op, b, loops);
        if (!op.regions.empty()) {
          loops.push_back(&op);
          for (Block& r : op.regions) walk(r);
          loops.pop_back();
        }
      }
    };
    walk(f_.body);
  }

  void add_tensor(Op& op, const Block& home, const std::vector<const Op*>& loops) {
    Tensor t;
    t.alloc = &op;
    t.home = &home;
    size_t k = loops.size();
    while (k > 0 && !(loops[k - 1]->kind == OpKind::PFor && loops[k - 1]->proc == ProcKind::Block)) --k;
    if (k == 0) LOOM_INTERNAL("resource allocation: SHARED alloc %" << f_.info(op.result).name << " is outside every pfor BLOCK");
    t.kernel = loops[k - 1];
    std::optional<int64_t> one = bounds_.tensor_bytes_bound(op.result);
    if (!one) unbounded(op, bounds_.why_unbounded(op.result));
    // A swizzled tile's rows take whole swizzle spans (ir::padded_row): its bytes with the
    // contiguous dimension rounded up.
    if (const int rank = f_.info(op.result).rank; op.layout.swizzle && rank >= 2) {
      const auto ext = bounds_.extent_bounds(op.result);
      const std::optional<int64_t> row = ext[static_cast<size_t>(op.layout.col_major ? rank - 2 : rank - 1)];
      const int64_t eb = dtype_bytes(f_.info(op.result).dtype);
      if (row && *row > 0) *one = *one / *row * ir::padded_row(op.layout, *row, eb);
    }
    std::vector<std::string> why;
    for (ProcKind p : proc_deps(op.result)) {
      auto e = f_.proc_extents.find(p);
      if (e == f_.proc_extents.end()) LOOM_INTERNAL("resource allocation: no processor count for " << proc_name(p));
      t.copies *= e->second;
      why.push_back(std::string("one per ") + proc_name(p));
    }
    for (size_t i = k; i < loops.size(); ++i)
      if (loops[i]->kind == OpKind::PFor) {  // an iteration's buffer, next to the other iterations'
        std::optional<int64_t> trips = bounds_.upper_bound(loops[i]->operands.at(0));
        if (!trips) unbounded(op, "it is allocated once per iteration of a pfor whose trip count has no bound");
        t.copies *= std::max<int64_t>(*trips, 1);
        why.push_back(std::string("one per iteration of the pfor ") + proc_name(loops[i]->proc) + " loop");
      }
    for (size_t i = 0; i < why.size(); ++i) t.copies_why += (i ? ", " : "") + why[i];
    t.align = ir::smem_alignment(f_.info(op.result).rank, *one);
    // Copies are laid out one after another, each starting aligned.
    const int64_t stride = t.copies > 1 ? align_up(*one, t.align) : *one;
    if (__builtin_mul_overflow(stride, t.copies, &t.bytes)) unbounded(op, "its size overflows 64 bits");
    index_[op.result] = static_cast<int>(tensors_.size());
    tensors_.push_back(t);
  }

  [[noreturn]] void unbounded(const Op& op, const std::string& why) {
    Diagnostic d;
    d.loc = op.loc;
    d.message = "the size of shared tensor `" + f_.info(op.result).name + "` is not known at compile time: " + why;
    if (!op.origin.empty()) d.notes.push_back({Severity::Note, op.loc, "allocated for " + op.origin, "", {}});
    d.hint = "a tensor in SHARED needs a static size: cut it with blocks(...) of constant (tunable) block sizes" +
             std::string(op.name.empty() ? "" : ", or map it to GLOBAL in instance `" + op.name + "`");
    throw CompileError(std::move(d));
  }

  // The processor kinds whose proc_index `v` depends on, as the executor evaluates it (once per
  // tuple of those processors' indices).
  const std::set<ProcKind>& proc_deps(ValueId v) {
    if (auto it = proc_deps_.find(v); it != proc_deps_.end()) return it->second;
    std::set<ProcKind> ks;
    if (const Op* op = tree_.def(v)) {
      if (op->kind == OpKind::ProcIndex) ks.insert(op->proc);
      std::vector<ValueId> uses = op->operands;
      if (op->kind == OpKind::Piece) uses.insert(uses.end(), op->part.block.begin(), op->part.block.end());
      for (ValueId u : uses)
        if (u != ir::kNone && u != v) {
          const std::set<ProcKind>& sub = proc_deps(u);
          ks.insert(sub.begin(), sub.end());
        }
    }
    return proc_deps_[v] = ks;
  }

  // The alloc (or parameter) a tensor value is a piece of; SSA: the chain ends.
  ValueId root(ValueId v) const {
    for (const Op* d = tree_.def(v); d && d->kind == OpKind::Piece && !d->operands.empty(); d = tree_.def(v)) v = d->operands[0];
    return v;
  }

  void collect_accesses() {
    std::function<void(Block&)> walk = [&](Block& b) {
      for (Op& op : b.ops) {
        if (op.kind == OpKind::Copy || op.kind == OpKind::Call)
          for (ValueId u : op.operands) {
            if (u == ir::kNone || f_.info(u).type != Type::Tensor) continue;
            auto it = index_.find(root(u));
            if (it == index_.end()) continue;
            std::vector<Op*>& acc = tensors_[static_cast<size_t>(it->second)].accesses;
            if (acc.empty() || acc.back() != &op) acc.push_back(&op);
          }
        for (Block& r : op.regions) walk(r);
      }
    };
    walk(f_.body);
    for (Tensor& t : tensors_)
      if (!t.accesses.empty()) {
        t.first = tree_.pos(t.accesses.front());
        t.last = tree_.pos(t.accesses.back());
      }
  }

  // ---- happens-before ----
  EventGraph& graph(const Block* b) {
    auto it = graphs_.find(b);
    if (it == graphs_.end()) it = graphs_.emplace(b, std::make_unique<EventGraph>(f_, tree_, *b)).first;
    return *it->second;
  }

  // Does the completion of `n` (an op holding `access`, or `access` itself) imply the access's?
  bool covered(Op* access, Op* n) {
    if (n == access) return true;
    const Block& body = n->regions.at(0);
    Op* m = tree_.summary(access, &body);
    EventGraph& g = graph(&body);
    return g.full(g.node(m), g.yield()) && covered(access, m);
  }

  // Every access of x completes before any access of y starts.
  bool before(const Tensor& x, const Tensor& y) {
    if (x.accesses.empty() || y.accesses.empty()) return true;
    // The deepest block holding both allocs (every access of each is inside its alloc's block).
    const Block* common = x.home;
    while (!tree_.encloses(common, y.home)) common = tree_.parent(common);
    // Per-iteration (or per-processor) tensors of a loop between the thread block and `common`.
    const Block* kernel_body = &x.kernel->regions.at(0);
    for (const Block* b = common; b != kernel_body; b = tree_.parent(b)) {
      const Op* loop = tree_.owner(b);
      if (loop->kind != OpKind::For || is_vectorized_for(f_, *loop) || chained_events(*loop).empty()) return false;
      EventGraph& g = graph(b);
      for (const Tensor* t : {&x, &y})
        for (Op* a : t->accesses) {
          Op* m = tree_.summary(a, b);
          int n = g.node(m);
          if (!g.full(EventGraph::kCarried, n) || !g.full(n, g.yield()) || !covered(a, m)) return false;
        }
    }
    std::set<Op*> xs, ys;
    for (Op* a : x.accesses) {
      Op* m = tree_.summary(a, common);
      if (!covered(a, m)) return false;
      xs.insert(m);
    }
    for (Op* a : y.accesses) ys.insert(tree_.summary(a, common));
    EventGraph& g = graph(common);
    for (Op* p : xs)
      for (Op* q : ys)
        if (p == q || !g.full(g.node(p), g.node(q))) return false;
    return true;
  }

  // ---- allocation of one thread block ----
  // The tensors of one block, indexed 0..n-1, and which pairs must keep apart.
  struct Group {
    std::vector<Tensor*> t;
    std::vector<std::vector<char>> separate;
  };

  struct Placement {
    std::vector<int64_t> offset;
    int64_t peak = 0;
  };

  // First fit in `order`: each tensor at the lowest aligned offset overlapping no placed neighbour.
  static Placement first_fit(const Group& g, const std::vector<size_t>& order) {
    Placement p;
    p.offset.assign(g.t.size(), 0);
    std::vector<size_t> placed;
    for (size_t i : order) {
      const Tensor& ti = *g.t[i];
      std::vector<int64_t> cand{0};
      for (size_t j : placed)
        if (g.separate[i][j]) cand.push_back(align_up(p.offset[j] + g.t[j]->bytes, ti.align));
      std::sort(cand.begin(), cand.end());
      for (int64_t c : cand) {
        bool free = std::none_of(placed.begin(), placed.end(), [&](size_t j) {
          return g.separate[i][j] && c < p.offset[j] + g.t[j]->bytes && p.offset[j] < c + ti.bytes;
        });
        if (free) {
          p.offset[i] = c;
          break;
        }
      }
      placed.push_back(i);
      p.peak = std::max(p.peak, p.offset[i] + ti.bytes);
    }
    return p;
  }

  // The better of first fit largest-first and first fit in program order.
  static Placement assign(const Group& g) {
    std::vector<size_t> by_size(g.t.size()), by_pos(g.t.size());
    for (size_t i = 0; i < g.t.size(); ++i) by_size[i] = by_pos[i] = i;
    std::stable_sort(by_size.begin(), by_size.end(), [&](size_t a, size_t b) {
      if (g.t[a]->bytes != g.t[b]->bytes) return g.t[a]->bytes > g.t[b]->bytes;
      return g.t[a]->first < g.t[b]->first;
    });
    std::stable_sort(by_pos.begin(), by_pos.end(), [&](size_t a, size_t b) { return g.t[a]->first < g.t[b]->first; });
    Placement a = first_fit(g, by_size), b = first_fit(g, by_pos);
    return b.peak < a.peak ? b : a;
  }

  void allocate(const std::vector<int>& members, std::vector<std::pair<Op*, EventRef>>& edges) {
    const size_t n = members.size();
    Group g;
    for (int i : members) g.t.push_back(&tensors_[static_cast<size_t>(i)]);
    // order[i][j]: every access of i happens before every access of j.
    std::vector<std::vector<char>> order(n, std::vector<char>(n, 0));
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        if (i != j) order[i][j] = before(*g.t[i], *g.t[j]);
    auto interfere = [&](size_t i, size_t j) { return i != j && !order[i][j] && !order[j][i]; };

    const int64_t budget = f_.smem.bytes;
    g.separate.assign(n, std::vector<char>(n, 0));
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) g.separate[i][j] = interfere(i, j);
    Placement tight = assign(g);
    if (tight.peak > budget) over_budget(g, tight.peak);

    // Auxiliary edges, in the order they are dropped (see the header): furthest apart first.
    struct Aux {
      size_t a, b;  // a before b
      int64_t distance, shared;
    };
    std::vector<Aux> aux;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j) {
        if (interfere(i, j)) continue;
        size_t a = order[i][j] ? i : j, b = a == i ? j : i;
        aux.push_back({a, b, g.t[b]->first - g.t[a]->last, std::min(g.t[a]->bytes, g.t[b]->bytes)});
      }
    std::stable_sort(aux.begin(), aux.end(), [](const Aux& x, const Aux& y) {
      if (x.distance != y.distance) return x.distance > y.distance;
      return x.shared > y.shared;
    });
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) g.separate[i][j] = i != j;
    auto set = [&](const Aux& e, char v) { g.separate[e.a][e.b] = g.separate[e.b][e.a] = v; };
    Placement p = assign(g);
    std::vector<size_t> dropped;
    for (size_t k = 0; k < aux.size() && p.peak > budget; ++k) {
      set(aux[k], 0);
      dropped.push_back(k);
      p = assign(g);
    }
    LOOM_ASSERT(p.peak <= budget, "resource allocation: the interference graph fits but its completion does not");
    // Undo every aliasing the budget does not need, latest first.
    for (size_t k = dropped.size(); k-- > 0;) {
      set(aux[dropped[k]], 1);
      Placement q = assign(g);
      if (q.peak <= budget) p = q;
      else set(aux[dropped[k]], 0);
    }

    for (size_t i = 0; i < n; ++i) f_.smem_slots[g.t[i]->value()] = {p.offset[i], g.t[i]->bytes, g.t[i]->copies};

    // Write-after-read edges between tensors that share bytes, each to the next one.
    auto overlap = [&](size_t i, size_t j) {
      return p.offset[i] < p.offset[j] + g.t[j]->bytes && p.offset[j] < p.offset[i] + g.t[i]->bytes;
    };
    auto used = [&](size_t i) { return !g.t[i]->accesses.empty(); };
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) {
        if (i == j || !overlap(i, j) || !order[i][j] || !used(i) || !used(j)) continue;
        bool through = false;
        for (size_t k = 0; k < n && !through; ++k)
          through = k != i && k != j && used(k) && overlap(i, k) && overlap(k, j) && order[i][k] && order[k][j];
        if (!through) war_edges(*g.t[i], *g.t[j], edges);
      }
  }

  // The last accesses of x (summarized in the block holding both allocs) become preconditions of
  // the first accesses of y.
  void war_edges(const Tensor& x, const Tensor& y, std::vector<std::pair<Op*, EventRef>>& edges) {
    const Block* common = x.home;
    while (!tree_.encloses(common, y.home)) common = tree_.parent(common);
    EventGraph& g = graph(common);
    std::set<Op*> xs, ys;
    for (Op* a : x.accesses) xs.insert(tree_.summary(a, common));
    for (Op* a : y.accesses) ys.insert(tree_.summary(a, common));
    for (Op* p : xs) {
      bool last = std::none_of(xs.begin(), xs.end(), [&](Op* o) { return o != p && g.full(g.node(p), g.node(o)); });
      if (!last || p->result == ir::kNone) continue;
      EventRef r = whole(*p);
      for (Op* q : ys) {
        bool first = std::none_of(ys.begin(), ys.end(), [&](Op* o) { return o != q && g.full(g.node(o), g.node(q)); });
        if (!first) continue;
        r.cross = (role_mask(q->role) & ~producer_mask(*p)) != 0;
        edges.push_back({q, r});
      }
    }
  }

  // Warp roles (ir.h, WARP SPECIALIZATION), as warp specialization marks `cross` references: the
  // roles that run an op, and the roles that produce its event (a loop's: its yield's producer).
  static int role_mask(ir::Role r) { return r == ir::Role::Dma ? 1 : r == ir::Role::Compute ? 2 : 3; }
  int producer_mask(const Op& op, int fuel = 16) const {
    if (op.kind != OpKind::For && op.kind != OpKind::PFor) return role_mask(op.role);
    const EventRef& y = op.regions.at(0).yield;
    const Op* d = y.value == ir::kNone ? nullptr : tree_.def(y.value);
    return d && fuel > 0 ? producer_mask(*d, fuel - 1) : 3;
  }

  // ---- the user error ----
  std::string shape(ValueId t) const {
    std::string s = std::string(dtype_name(f_.info(t).dtype)) + " [";
    std::vector<std::optional<int64_t>> ext = bounds_.extent_bounds(t);
    for (size_t i = 0; i < ext.size(); ++i) s += (i ? ", " : "") + (ext[i] ? std::to_string(*ext[i]) : std::string("?"));
    return s + "]";
  }

  [[noreturn]] void over_budget(const Group& g, int64_t needed) {
    const ir::SmemBudget& b = f_.smem;
    Diagnostic d;
    d.loc = b.loc;
    d.message = "shared memory of " + (b.instance.empty() ? std::string("the thread block") : b.instance) + " needs " +
                std::to_string(needed) + " bytes but " + (b.clause.empty() ? "the machine's per-block maximum" : b.clause) +
                " allows " + std::to_string(b.bytes);
    std::vector<const Tensor*> sorted(g.t.begin(), g.t.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](const Tensor* a, const Tensor* c) { return tree_.pos(a->alloc) < tree_.pos(c->alloc); });
    for (const Tensor* tp : sorted) {
      const Tensor& t = *tp;
      std::string m = "shared tensor `" + f_.info(t.value()).name + "` (" + shape(t.value()) + ") takes " +
                      std::to_string(t.bytes) + " bytes";
      if (t.copies > 1) m += " (" + std::to_string(t.copies) + " copies: " + t.copies_why + ")";
      if (!t.alloc->name.empty()) m += ", placed in SHARED by instance `" + t.alloc->name + "`";
      d.notes.push_back({Severity::Note, t.alloc->loc, m, "", {}});
    }
    std::string kb = std::to_string(b.machine_max / 1024) + "KB";
    d.hint = b.bytes < b.machine_max ? "raise smem(...) (at most smem(" + kb + ")), use smaller tiles, lower pipeline(n), or map fewer tensors to SHARED"
                                     : "use smaller tiles, lower pipeline(n), or map fewer tensors to SHARED (smem(" + kb +
                                           ") is the machine's maximum)";
    throw CompileError(std::move(d));
  }

  Function& f_;
  Tree tree_;
  StaticBounds bounds_;
  std::vector<Tensor> tensors_;
  std::unordered_map<ValueId, int> index_;  // alloc value -> tensors_ index
  std::unordered_map<ValueId, std::set<ProcKind>> proc_deps_;
  std::unordered_map<const Block*, std::unique_ptr<EventGraph>> graphs_;
};

}  // namespace

void allocate_resources(ir::Function& f) {
  Allocator(f).serialize_iterations();
  Allocator(f).run();
}

}  // namespace loom
