// The CPU executor for the event IR: dynamic expansion into instances, seeded random order of ready
// instances. See executor.h for the semantics it realizes.
#include "exec/executor.h"
#include "exec/races.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace loom::exec {

using ir::EventRef;
using ir::Function;
using ir::Op;
using ir::OpKind;
using ir::Type;
using ir::ValueId;
using detail::MemAccess;
using detail::kRead;
using detail::kSum;
using detail::kMax;
using detail::kWrite;

namespace {

const char* kind_name(OpKind k) {
  switch (k) {
    case OpKind::Const: return "const";
    case OpKind::FConst: return "fconst";
    case OpKind::Arith: return "arith";
    case OpKind::Dim: return "dim";
    case OpKind::ProcIndex: return "proc_index";
    case OpKind::Alloc: return "alloc";
    case OpKind::Piece: return "piece";
    case OpKind::Copy: return "copy";
    case OpKind::Call: return "call";
    case OpKind::Join: return "join";
    case OpKind::For: return "for";
    case OpKind::PFor: return "pfor";
  }
  return "?";
}

// Value names as the printer makes them (ir::value_names).
struct Names {
  explicit Names(const Function& f) : names(ir::value_names(f)) {}
  std::vector<std::string> names;
};

std::string value_name(const Names& nm, ValueId v) {
  if (v == ir::kNone) return "none";
  if (v < 0 || static_cast<size_t>(v) >= nm.names.size()) return "%?" + std::to_string(v);
  const std::string& s = nm.names[static_cast<size_t>(v)];
  return s.empty() ? "%?" + std::to_string(v) : s;
}

std::string ref_text(const Names& f, const EventRef& r) {
  std::string s = value_name(f, r.value);
  if (!r.indices.empty()) {
    s += "[";
    for (size_t i = 0; i < r.indices.size(); ++i) s += (i ? ", " : "") + (r.indices[i] == ir::kNone ? ":" : value_name(f, r.indices[i]));
    s += "]";
  }
  return s;
}

std::string path_text(const std::vector<int>& p) {
  std::string s;
  for (size_t i = 0; i < p.size(); ++i) s += (i ? "." : "") + std::to_string(p[i]);
  return s;
}

std::string op_text(const Names& f, const Op& op, const std::vector<int>& path) {
  std::string s = kind_name(op.kind);
  if (op.kind == OpKind::Call) s += " " + op.name;
  if (op.kind == OpKind::Copy && !op.name.empty()) s += "." + op.name;
  if (op.kind == OpKind::Copy && op.operands.size() == 2)
    s += " " + value_name(f, op.operands[0]) + " -> " + value_name(f, op.operands[1]);
  if (op.result != ir::kNone) s = value_name(f, op.result) + " = " + s;
  s += " at " + path_text(path);
  if (!op.origin.empty()) s += " (" + op.origin + ")";
  return s;
}

// Does `b` (at any depth) refer to event value `v`?
bool block_refers(const ir::Block& b, ValueId v) {
  auto in = [&](const EventRef& r) { return r.value == v; };
  if (in(b.yield)) return true;
  for (const Op& op : b.ops) {
    for (const EventRef& r : op.after)
      if (in(r)) return true;
    for (const ir::Block& r : op.regions)
      if (block_refers(r, v)) return true;
  }
  return false;
}

void walk_ops(const ir::Block& b, std::vector<int>& path, const std::function<void(const Op&, const std::vector<int>&)>& fn) {
  for (size_t i = 0; i < b.ops.size(); ++i) {
    path.push_back(static_cast<int>(i));
    fn(b.ops[i], path);
    for (const ir::Block& r : b.ops[i].regions) walk_ops(r, path, fn);
    path.pop_back();
  }
}

const Op* op_at(const Function& f, const std::vector<int>& path) {
  const ir::Block* b = &f.body;
  const Op* op = nullptr;
  for (size_t i = 0; i < path.size(); ++i) {
    if (!b || path[i] < 0 || static_cast<size_t>(path[i]) >= b->ops.size()) return nullptr;
    op = &b->ops[static_cast<size_t>(path[i])];
    b = op->regions.empty() ? nullptr : &op->regions[0];
  }
  return op;
}

// ---- run-time values ----

// copy.sum / copy.max: dst = dst + src (max(dst, src), NaN-propagating) elementwise.
void reduce_copy(const View& src, const View& dst, const std::string& how) {
  if (how != "sum" && how != "max") throw std::runtime_error("unknown reducing copy copy." + how);
  if (src.extents() != dst.extents()) throw std::runtime_error("copy." + how + ": shapes differ");
  if (src.dtype() != dst.dtype()) throw std::runtime_error("copy." + how + ": element types differ");
  if (src.size() == 0) return;
  std::vector<int64_t> c(static_cast<size_t>(src.rank()), 0);
  for (int64_t n = 0; n < src.size(); ++n) {
    double a = dst.load(c), b = src.load(c);
    double r = how == "sum" ? a + b : (std::isnan(a) || std::isnan(b)) ? std::nan("") : std::max(a, b);
    dst.store(c, r);
    for (size_t d = c.size(); d-- > 0;) {  // next coordinate, last dimension fastest
      if (++c[d] < src.extents()[d]) break;
      c[d] = 0;
    }
  }
}

struct EventVal {
  std::vector<int64_t> extents;  // empty: a single event
  std::vector<int32_t> nodes;    // row-major elements
  int32_t origin = -1;           // pfor arrays: the loop's own node (every reference also waits for it)
};
struct Deferred {
  const Op* op;
};
using RtVal = std::variant<std::monostate, int64_t, double, View, EventVal, Deferred>;

struct Frame {
  Frame* parent = nullptr;
  std::unordered_map<ValueId, RtVal> vals;
  std::map<std::vector<int64_t>, RtVal> per_proc;   // deferred values: {value, processor indices...}
  std::vector<std::pair<ProcKind, int64_t>> procs;  // processors bound here
  const Op* loop = nullptr;                         // a loop iteration: its loop and index
  int64_t iter = -1;
};

// proc_index of a kind that is not bound where it is evaluated.
struct NeedProc : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Node {
  enum class Role { Op, IterYield, LoopDone } role = Role::Op;
  bool work = true;  // picked and run (Op); otherwise completes by itself when its deps have
  bool done = false;
  int32_t remaining = 1;  // unfinished deps + 1 token held until wiring is finished
  std::vector<int32_t> waiters;
  const Op* op = nullptr;  // Op: the op; IterYield/LoopDone: the loop
  Frame* frame = nullptr;  // where it runs / where the loop is
  int64_t iter = -1;       // IterYield
  int32_t loop_info = -1;  // Op of a loop: index into loops_
};

struct LoopInfo {
  int64_t n = 0;
  std::vector<int32_t> yields;
};

class Executor {
 public:
  Executor(const Function& f, uint64_t seed, const ExecOptions& opt, ExecResult& res)
      : f_(f), names_(f), rng_(seed), opt_(opt), res_(res) {
    std::vector<int> path;
    walk_ops(f_.body, path, [&](const Op& op, const std::vector<int>& p) {
      paths_[&op] = p;
      if (op.result != ir::kNone) defs_[op.result] = &op;
    });
    extents_ = f_.proc_extents;  // recorded by the vectorization pass; ExecOptions overrides
    for (const auto& [k, n] : opt_.proc_extents) extents_[k] = n;
    if (opt_.skip_edge) {
      skip_op_ = op_at(f_, opt_.skip_edge->op_path);
      if (!skip_op_) throw std::runtime_error("skip_edge: no op at path " + path_text(opt_.skip_edge->op_path));
    }
  }

  void run(const std::vector<ExecArg>& args) {
    Frame* top = new_frame(nullptr);
    if (args.size() != f_.params.size())
      throw std::runtime_error("function @" + f_.name + " takes " + std::to_string(f_.params.size()) + " argument(s), got " +
                               std::to_string(args.size()));
    for (size_t i = 0; i < args.size(); ++i) {
      ValueId p = f_.params[i];
      const ir::ValueInfo& info = f_.info(p);
      std::string what = "argument " + std::to_string(i) + " (" + value_name(names_, p) + ")";
      if (info.type == Type::Tensor) {
        const View* v = std::get_if<View>(&args[i]);
        if (!v || !v->buffer()) throw std::runtime_error(what + " must be a tensor view");
        if (v->rank() != info.rank)
          throw std::runtime_error(what + " has rank " + std::to_string(v->rank()) + ", the function expects " + std::to_string(info.rank));
        if (v->dtype() != info.dtype)
          throw std::runtime_error(what + " is " + dtype_name(v->dtype()) + ", the function expects " + dtype_name(info.dtype));
        top->vals[p] = *v;
        if (opt_.detect_races) buffer_names_.emplace(v->buffer().get(), value_name(names_, p));
      } else if (info.type == Type::Index || info.type == Type::Float) {
        const double* d = std::get_if<double>(&args[i]);
        if (!d) throw std::runtime_error(what + " must be a number");
        if (info.type == Type::Index) {
          auto x = static_cast<int64_t>(*d);
          if (static_cast<double>(x) != *d) throw std::runtime_error(what + " is an index; got " + std::to_string(*d));
          top->vals[p] = x;
        } else {
          top->vals[p] = *d;
        }
      } else {
        throw std::runtime_error(what + ": events cannot be function parameters");
      }
    }
    instantiate(f_.body, top, -1, nullptr, -1);

    while (!ready_.empty()) {
      std::uniform_int_distribution<size_t> pick(0, ready_.size() - 1);
      size_t i = pick(rng_);
      int32_t n = ready_[i];
      ready_[i] = ready_.back();
      ready_.pop_back();
      run_node(n);
    }
    check_finished();
  }

 private:
  // ---- nodes ----
  int32_t new_node(Node n) {
    if (n.work) count_instance();
    nodes_.push_back(std::move(n));
    if (opt_.detect_races) {
      seq_.push_back(-1);
      pred_range_.push_back({0, 0});
    }
    return static_cast<int32_t>(nodes_.size() - 1);
  }
  void add_dep(int32_t n, int32_t dep) {
    if (!nodes_[dep].done) {
      nodes_[dep].waiters.push_back(n);
      ++nodes_[n].remaining;
    }
  }
  void release(int32_t n) { decrement(n); }
  // Node `n` waits for `deps` (one event reference's completion records); for race detection they
  // are also its preds — through one shared hub node when there are many (an `E[:, :]` reference
  // of every processor's instance would otherwise give each of them every element as a pred).
  void wait_for(int32_t n, const std::vector<int32_t>& deps) {
    for (int32_t d : deps) add_dep(n, d);
    if (!opt_.detect_races) return;
    if (deps.size() < kHubMin) {
      for (int32_t d : deps) add_pred(n, d);
      return;
    }
    auto [it, fresh] = hubs_.try_emplace(deps, -1);
    if (fresh) {
      Node h;
      h.work = false;
      h.done = true;
      h.remaining = 0;
      it->second = new_node(std::move(h));
      for (int32_t d : deps) add_pred(it->second, d);
      seq_[static_cast<size_t>(it->second)] = INT32_MAX;  // never pruned: its preds are
    }
    add_pred(n, it->second);
  }
  // Race detection: records that node `n` comes after node `p` (a node's preds are recorded
  // together, so each is one range of pred_pool_; a range that is not last is moved to the end).
  void add_pred(int32_t n, int32_t p) {
    auto& [off, cnt] = pred_range_[static_cast<size_t>(n)];
    if (cnt == 0) {
      off = static_cast<int32_t>(pred_pool_.size());
    } else if (static_cast<size_t>(off + cnt) != pred_pool_.size()) {
      int32_t moved = static_cast<int32_t>(pred_pool_.size());
      for (int32_t i = 0; i < cnt; ++i) pred_pool_.push_back(pred_pool_[static_cast<size_t>(off + i)]);
      off = moved;
    }
    pred_pool_.push_back(p);
    ++cnt;
  }
  void decrement(int32_t n) {
    std::vector<int32_t> work{n};
    while (!work.empty()) {
      int32_t x = work.back();
      work.pop_back();
      if (--nodes_[x].remaining > 0) continue;
      if (nodes_[x].work) {
        ready_.push_back(x);
      } else {
        nodes_[x].done = true;
        if (opt_.detect_races) seq_[static_cast<size_t>(x)] = next_seq_++;
        for (int32_t w : nodes_[x].waiters) work.push_back(w);
      }
    }
  }
  void complete(int32_t n) {
    nodes_[n].done = true;
    if (opt_.detect_races) seq_[static_cast<size_t>(n)] = next_seq_++;
    std::vector<int32_t> ws = nodes_[n].waiters;
    for (int32_t w : ws) decrement(w);
  }

  Frame* new_frame(Frame* parent) {
    count_instance();
    frames_.push_back(std::make_unique<Frame>());
    frames_.back()->parent = parent;
    return frames_.back().get();
  }

  void count_instance() {
    if (++res_.instances > opt_.max_instances)
      throw std::runtime_error("instance limit exceeded (" + std::to_string(opt_.max_instances) +
                               " instances): the IR expands to too much work for the CPU executor; use smaller sizes");
  }

  bool skipped(const Op* op, EdgeId::Kind k, int index) const {
    return skip_op_ == op && opt_.skip_edge->kind == k && opt_.skip_edge->index == index;
  }

  // ---- values ----
  // The processor kinds whose proc_index value `v` depends on (through its defining ops' operands).
  const std::vector<ProcKind>& proc_deps(ValueId v) {
    auto m = proc_deps_.find(v);
    if (m != proc_deps_.end()) return m->second;
    std::set<ProcKind> ks;
    auto d = defs_.find(v);
    if (d != defs_.end()) {
      const Op& op = *d->second;
      if (op.kind == OpKind::ProcIndex) ks.insert(op.proc);
      std::vector<ValueId> uses = op.operands;
      if (op.kind == OpKind::Piece) uses.insert(uses.end(), op.part.block.begin(), op.part.block.end());
      for (ValueId u : uses)
        if (u != ir::kNone && u != v)
          for (ProcKind k : proc_deps(u)) ks.insert(k);
    }
    return proc_deps_[v] = std::vector<ProcKind>(ks.begin(), ks.end());
  }

  const RtVal& lookup(ValueId v, Frame* start) {
    for (Frame* fr = start; fr; fr = fr->parent) {
      auto it = fr->vals.find(v);
      if (it == fr->vals.end()) continue;
      if (const Deferred* d = std::get_if<Deferred>(&it->second)) {
        // Depends on processor indices not bound where it is defined: evaluated once per tuple of
        // the processors it depends on (as bound at `start`), and remembered in its defining frame
        // — so every op of one processor (and every later loop iteration) sees the same value,
        // e.g. the same buffer of an alloc, and the processors that do not differ in those
        // indices share it.
        const Op* op = d->op;
        std::vector<int64_t> key{v};
        bool bound = true;
        for (ProcKind k : proc_deps(v)) {
          std::optional<int64_t> x = proc_bound(k, start);
          if (!x) bound = false;
          else key.push_back(*x);
        }
        if (!bound) {
          eval_immediate(*op, start);  // throws NeedProc naming the unbound processor
          throw NeedProc("value " + value_name(names_, v) + " needs a processor index that is not bound here");
        }
        auto c = fr->per_proc.find(key);
        if (c != fr->per_proc.end()) return c->second;
        RtVal r = eval_immediate(*op, start);
        return fr->per_proc[key] = std::move(r);
      }
      return it->second;
    }
    throw std::runtime_error("value " + value_name(names_, v) + " is used where it has no value (not defined, or defined later)");
  }
  int64_t index_of(ValueId v, Frame* fr) {
    const RtVal& r = lookup(v, fr);
    if (const int64_t* x = std::get_if<int64_t>(&r)) return *x;
    throw std::runtime_error("value " + value_name(names_, v) + " is not an index");
  }
  View view_of(ValueId v, Frame* fr) {
    const RtVal& r = lookup(v, fr);
    if (const View* x = std::get_if<View>(&r)) return *x;
    throw std::runtime_error("value " + value_name(names_, v) + " is not a tensor");
  }

  std::optional<int64_t> proc_bound(ProcKind k, Frame* fr) const {
    for (; fr; fr = fr->parent)
      for (auto it = fr->procs.rbegin(); it != fr->procs.rend(); ++it)
        if (it->first == k) return it->second;
    return std::nullopt;
  }

  RtVal eval_immediate(const Op& op, Frame* fr) {
    auto operand = [&](size_t i) {
      if (i >= op.operands.size()) throw std::runtime_error(std::string(kind_name(op.kind)) + " is missing an operand");
      return op.operands[i];
    };
    switch (op.kind) {
      case OpKind::Const: return op.ival;
      case OpKind::FConst: return op.fval;
      case OpKind::Arith: {
        int64_t a = index_of(operand(0), fr), b = index_of(operand(1), fr);
        const std::string& n = op.name;
        if (n == "add") return a + b;
        if (n == "sub") return a - b;
        if (n == "mul") return a * b;
        if (n == "min") return std::min(a, b);
        if (n == "max") return std::max(a, b);
        if (n == "div" || n == "mod" || n == "cdiv") {
          if (b == 0) throw std::runtime_error(n + " by zero");
          if (n == "div") return a / b;
          if (n == "mod") return a % b;
          return (a + b - 1) / b;
        }
        throw std::runtime_error("unknown arith operator '" + n + "'");
      }
      case OpKind::Dim: {
        View v = view_of(operand(0), fr);
        if (op.ival < 0 || op.ival >= v.rank())
          throw std::runtime_error("dim " + std::to_string(op.ival) + " of a rank-" + std::to_string(v.rank()) + " tensor");
        return v.extents()[static_cast<size_t>(op.ival)];
      }
      case OpKind::ProcIndex: {
        if (auto x = proc_bound(op.proc, fr)) return *x;
        throw NeedProc(std::string("proc_index ") + proc_name(op.proc) + ": no " + proc_name(op.proc) +
                       " processor is bound here (not inside a pfor " + proc_name(op.proc) +
                       ", and not used by an operation whose result is an event array over " + proc_name(op.proc) + ")");
      }
      case OpKind::Alloc: {
        std::vector<int64_t> ext;
        for (ValueId v : op.operands) {
          ext.push_back(index_of(v, fr));
          if (ext.back() < 0) throw std::runtime_error("alloc with negative extent " + std::to_string(ext.back()));
        }
        std::string name = op.result == ir::kNone ? "" : f_.info(op.result).name;
        View v(make_buffer(op.dtype, std::move(ext), name));
        // The piece this allocation holds a copy of, when it is still evaluated here (copy
        // elimination may have removed it; then mask_above uses this buffer's own coordinates).
        if (op.holds != ir::kNone) {
          try {
            v.buffer()->holds = std::make_shared<const View>(view_of(op.holds, fr));
          } catch (const std::runtime_error&) {
          }
        }
        if (opt_.detect_races && op.result != ir::kNone) buffer_names_[v.buffer().get()] = value_name(names_, op.result);
        return v;
      }
      case OpKind::Piece: {
        View src = view_of(operand(0), fr);
        const ir::PartitionSpec& p = op.part;
        switch (p.kind) {
          case ir::PartitionSpec::Kind::Blocks: {
            std::vector<int64_t> block, color;
            for (ValueId b : p.block) block.push_back(b == ir::kNone ? 0 : index_of(b, fr));
            for (size_t i = 1; i < op.operands.size(); ++i) color.push_back(index_of(op.operands[i], fr));
            // blocks_of reads a block size of 0 as `*` (the whole dimension); a size that is 0 at
            // run time (a thread's columns of a tile clipped before them) is an empty piece: the
            // block of size 1 just past the end.
            for (size_t d = 0; d < block.size() && d < color.size(); ++d)
              if (p.block[d] != ir::kNone && block[d] == 0) {
                block[d] = 1;
                color[d] = src.extents().at(d);
              }
            return blocks_of(src, block, color);
          }
          case ir::PartitionSpec::Kind::Slices: {
            int64_t i = index_of(operand(1), fr);
            return slice_of(src, p.dim, i);
          }
          case ir::PartitionSpec::Kind::Mma: return mma_of(src, p.role, p.holder, index_of(operand(1), fr), p.transposed);
        }
        throw std::runtime_error("unknown partition kind");
      }
      default: break;
    }
    throw std::runtime_error(std::string(kind_name(op.kind)) + " is not an immediate op");
  }

  // The completion records an event reference stands for, in frame `fr`.
  void resolve(const EventRef& r, Frame* fr, std::vector<int32_t>& out) {
    if (r.value == ir::kNone) return;
    const RtVal& v = lookup(r.value, fr);
    const EventVal* e = std::get_if<EventVal>(&v);
    if (!e) throw std::runtime_error(value_name(names_, r.value) + " is not an event");
    EventVal ev = *e;  // lookup may rehash the frame below
    if (ev.origin >= 0) out.push_back(ev.origin);
    if (ev.extents.empty() || r.indices.empty()) {
      if (!r.indices.empty()) throw std::runtime_error("a single event " + value_name(names_, r.value) + " cannot be indexed");
      out.insert(out.end(), ev.nodes.begin(), ev.nodes.end());
      return;
    }
    if (r.indices.size() != ev.extents.size())
      throw std::runtime_error("event array " + value_name(names_, r.value) + " has " + std::to_string(ev.extents.size()) +
                               " dimension(s), indexed with " + std::to_string(r.indices.size()));
    std::vector<std::pair<int64_t, int64_t>> ranges;  // per dimension [lo, hi)
    for (size_t d = 0; d < ev.extents.size(); ++d) {
      if (r.indices[d] == ir::kNone) {
        ranges.emplace_back(0, ev.extents[d]);
      } else {
        int64_t i = index_of(r.indices[d], fr);
        if (i < 0 || i >= ev.extents[d])
          throw std::runtime_error("event reference " + ref_text(names_, r) + ": index " + std::to_string(i) + " out of range [0, " +
                                   std::to_string(ev.extents[d]) + ")");
        ranges.emplace_back(i, i + 1);
      }
    }
    std::vector<int64_t> c(ranges.size());
    std::function<void(size_t, int64_t)> rec = [&](size_t d, int64_t flat) {
      if (d == ranges.size()) {
        out.push_back(ev.nodes[static_cast<size_t>(flat)]);
        return;
      }
      for (int64_t i = ranges[d].first; i < ranges[d].second; ++i) rec(d + 1, flat * ev.extents[d] + i);
    };
    rec(0, 0);
  }

  // ---- instantiation ----
  struct Pending {
    int32_t node;
    const Op* op;
    Frame* frame;
  };

  // Creates the instance(s) of async op `op` in frame `fr` (several for an op over processors);
  // returns its result value.
  RtVal create_async(const Op& op, Frame* fr, std::vector<Pending>& pending) {
    bool replicated = op.kind != OpKind::PFor && op.result != ir::kNone && f_.info(op.result).type == Type::Events;
    if (!replicated) return create_one(op, fr, pending);
    const std::vector<ProcKind>& dims = f_.info(op.result).event_dims;
    EventVal ev;
    int64_t total = 1;
    for (ProcKind k : dims) {
      auto it = extents_.find(k);
      if (it == extents_.end())
        throw std::runtime_error(op_text(names_, op, paths_[&op]) + " runs once per " + proc_name(k) +
                                 " (its result is an event array) but proc_extents gives no count for " + proc_name(k) +
                                 " (neither the function's nor ExecOptions')");
      ev.extents.push_back(it->second);
      total *= it->second;
    }
    for (int64_t flat = 0; flat < total; ++flat) {
      Frame* rep = new_frame(fr);
      int64_t rest = flat;
      for (size_t d = dims.size(); d-- > 0;) {
        rep->procs.insert(rep->procs.begin(), {dims[d], rest % ev.extents[d]});
        rest /= ev.extents[d];
      }
      RtVal one = create_one(op, rep, pending);
      ev.nodes.push_back(std::get<EventVal>(one).nodes.at(0));
    }
    return ev;
  }

  RtVal create_one(const Op& op, Frame* fr, std::vector<Pending>& pending) {
    Node n;
    n.op = &op;
    n.frame = fr;
    if (op.kind == OpKind::For || op.kind == OpKind::PFor) {
      int64_t trip = index_of(op.operands.at(0), fr);
      if (trip < 0) throw std::runtime_error(op_text(names_, op, paths_[&op]) + ": negative trip count " + std::to_string(trip));
      if (op.regions.size() != 1) throw std::runtime_error(op_text(names_, op, paths_[&op]) + ": a loop has one body");
      loops_.push_back(LoopInfo{trip, {}});
      n.loop_info = static_cast<int32_t>(loops_.size() - 1);
      int32_t loop = new_node(std::move(n));
      pending.push_back({loop, &op, fr});
      std::vector<int32_t> yields;
      for (int64_t k = 0; k < trip; ++k) {
        Node y;
        y.role = Node::Role::IterYield;
        y.work = false;
        y.op = &op;
        y.frame = fr;
        y.iter = k;
        yields.push_back(new_node(std::move(y)));  // token released when the loop expands
      }
      loops_[static_cast<size_t>(nodes_[loop].loop_info)].yields = yields;
      if (op.kind == OpKind::PFor) {
        if (op.result != ir::kNone && f_.info(op.result).event_dims.size() > 1)
          throw std::runtime_error(op_text(names_, op, paths_[&op]) + ": a pfor result has one dimension");
        return EventVal{{trip}, yields, loop};
      }
      Node d;
      d.role = Node::Role::LoopDone;
      d.work = false;
      d.op = &op;
      d.frame = fr;
      int32_t done = new_node(std::move(d));
      std::vector<int32_t> deps{loop};
      deps.insert(deps.end(), yields.begin(), yields.end());
      wait_for(done, deps);
      release(done);
      return EventVal{{}, {done}, -1};
    }
    int32_t id = new_node(std::move(n));
    pending.push_back({id, &op, fr});
    return EventVal{{}, {id}, -1};
  }

  // Instantiates block `b` in frame `fr`; `yield_node` (>= 0 for loop bodies) is the iteration's
  // completion, wired to the block's yield of loop `loop`, whose node `loop_node` runs (expands) it:
  // every instance of the body comes after it (recorded for race detection; no wait is added, it is
  // running).
  void instantiate(const ir::Block& b, Frame* fr, int32_t yield_node, const Op* loop, int32_t loop_node) {
    std::vector<Pending> pending;
    for (const Op& op : b.ops) {
      if (is_async(op.kind)) {
        RtVal v = create_async(op, fr, pending);
        if (op.result != ir::kNone) fr->vals[op.result] = std::move(v);
      } else {
        RtVal v;
        try {
          v = eval_immediate(op, fr);
        } catch (const NeedProc&) {
          v = Deferred{&op};  // evaluated per processor by the ops that use it
        } catch (const std::exception& e) {
          throw std::runtime_error(op_text(names_, op, paths_[&op]) + where(fr) + ": " + e.what());
        }
        if (op.result != ir::kNone) fr->vals[op.result] = std::move(v);
      }
    }
    std::vector<int32_t> deps;
    for (const Pending& p : pending) {
      try {
        for (size_t i = 0; i < p.op->after.size(); ++i)
          if (!skipped(p.op, EdgeId::Kind::After, static_cast<int>(i))) {
            deps.clear();
            resolve(p.op->after[i], p.frame, deps);
            wait_for(p.node, deps);
          }
      } catch (const std::exception& e) {
        throw std::runtime_error(op_text(names_, *p.op, paths_[p.op]) + where(p.frame) + ": " + e.what());
      }
      if (opt_.detect_races && loop_node >= 0) add_pred(p.node, loop_node);
      release(p.node);
    }
    if (yield_node >= 0) {
      if (!skipped(loop, EdgeId::Kind::Yield, 0)) {
        deps.clear();
        try {
          resolve(b.yield, fr, deps);
        } catch (const std::exception& e) {
          throw std::runtime_error("yield of " + op_text(names_, *loop, paths_[loop]) + where(fr) + ": " + e.what());
        }
        wait_for(yield_node, deps);
      }
      if (opt_.detect_races && loop_node >= 0) add_pred(yield_node, loop_node);
      release(yield_node);
    }
  }

  void expand(int32_t loop_node) {
    const Op& op = *nodes_[loop_node].op;
    Frame* fr = nodes_[loop_node].frame;
    LoopInfo info = loops_[static_cast<size_t>(nodes_[loop_node].loop_info)];
    const ir::Block& body = op.regions[0];
    if (op.kind == OpKind::For ? body.args.size() < 2 : body.args.size() != 1)
      throw std::runtime_error(op_text(names_, op, paths_[&op]) + ": loop body has the wrong number of arguments");
    for (int64_t k = 0; k < info.n; ++k) {
      Frame* it = new_frame(fr);
      it->loop = &op;
      it->iter = k;
      it->vals[body.args[0]] = k;
      if (op.kind == OpKind::For) {
        // Carried event j: the yield of iteration k - d_j (the history of yields is info.yields).
        for (size_t j = 0; j + 1 < body.args.size(); ++j) {
          const int64_t d = ir::carried_distance(op, j);
          if (d < 1) throw std::runtime_error(op_text(names_, op, paths_[&op]) + ": carried distance " + std::to_string(d) + " is not at least 1");
          bool unchained = skipped(&op, EdgeId::Kind::Carried, static_cast<int>(j));
          int32_t carried = (k < d || unchained) ? loop_node : info.yields[static_cast<size_t>(k - d)];
          it->vals[body.args[j + 1]] = EventVal{{}, {carried}, -1};
        }
      } else {
        it->procs.emplace_back(op.proc, k);
      }
      instantiate(body, it, info.yields[static_cast<size_t>(k)], &op, loop_node);
    }
  }

  // ---- running ----
  void run_node(int32_t id) {
    const Op& op = *nodes_[id].op;
    Frame* fr = nodes_[id].frame;
    ++res_.ops_run;
    if (opt_.trace) res_.trace.push_back(describe(id));
    try {
      switch (op.kind) {
        case OpKind::Copy: {
          if (op.operands.size() != 2) throw std::runtime_error("copy takes a source and a destination");
          View src = view_of(op.operands[0], fr), dst = view_of(op.operands[1], fr);
          count_elements(src.size());
          if (opt_.detect_races) {
            uint8_t m = op.name.empty() ? kWrite : op.name == "sum" ? kSum : op.name == "max" ? kMax : kWrite;
            check_races(id, {{src, kRead, tag_of(op.operands[0], fr), op.operands[0]},
                             {dst, m, tag_of(op.operands[1], fr), op.operands[1]}});
          }
          if (op.name.empty()) copy_view(src, dst);
          else reduce_copy(src, dst, op.name);
          break;
        }
        case OpKind::Call: {
          const LeafOp* leaf = find_leaf_op(op.name);
          if (!leaf) {
            if (op.name.rfind("extern:", 0) == 0)
              throw std::runtime_error("extern leaf '" + op.name.substr(7) +
                                       "' has no CPU implementation: the CPU executor runs built-in leaf ops only");
            throw std::runtime_error("unknown leaf op '" + op.name + "'");
          }
          std::vector<LeafArg> args;
          int64_t elems = 0;
          for (ValueId v : op.operands) {
            const RtVal& r = lookup(v, fr);
            LeafArg a;
            if (const View* t = std::get_if<View>(&r)) {
              a.view = *t;
              elems += t->size();
            } else if (const int64_t* x = std::get_if<int64_t>(&r)) {
              a.is_tensor = false;
              a.scalar = static_cast<double>(*x);
            } else if (const double* d = std::get_if<double>(&r)) {
              a.is_tensor = false;
              a.scalar = *d;
            } else {
              throw std::runtime_error("argument " + value_name(names_, v) + " is not a tensor or a scalar");
            }
            args.push_back(std::move(a));
          }
          if (leaf->family == OpFamily::Mma && args.size() == 3 && args[0].is_tensor && args[1].is_tensor && args[1].view.rank() >= 1)
            elems = args[0].view.size() * args[1].view.extents().back();
          count_elements(elems);
          if (opt_.detect_races) {
            std::vector<MemAccess> acc;
            for (size_t i = 0; i < args.size(); ++i)
              if (args[i].is_tensor) {
                bool reads_only = i < leaf->args.size() && leaf->args[i].access == loom::Access::Read;
                acc.push_back({args[i].view, reads_only ? kRead : kWrite, tag_of(op.operands[i], fr), op.operands[i]});
              }
            // Writes first: an argument passed twice (sub(S, S, m)) is then one write.
            std::stable_sort(acc.begin(), acc.end(), [](const MemAccess& a, const MemAccess& b) { return a.mode > b.mode; });
            check_races(id, acc);
          }
          run_leaf_op(*leaf, args, op.broadcast_dim);
          break;
        }
        case OpKind::Join: break;
        case OpKind::For:
        case OpKind::PFor: expand(id); break;
        default: throw std::runtime_error("not an asynchronous op");
      }
    } catch (const std::exception& e) {
      std::string msg = e.what();
      if (msg.rfind("instance limit", 0) == 0 || msg.rfind("element-op limit", 0) == 0 || msg.rfind("data race", 0) == 0) throw;
      throw std::runtime_error(describe(id) + ": " + msg);
    }
    complete(id);
  }

  // ---- race detection (ExecOptions::detect_races; see executor.h, RACES; races.h) ----
  // Instance `id` is about to make the accesses `acc`: a race with an earlier access stops the run.
  void check_races(int32_t id, const std::vector<MemAccess>& acc) {
    if (auto r = history_.record(id, acc, detail::InstanceGraph{seq_, pred_range_, pred_pool_})) race(*r);
  }

  // The replica tag of an access through value `v`: the lane index of the replicated row piece
  // (a WARP-held mma partition of a rank-1 tensor) it is cut from, or -1.
  int64_t tag_of(ValueId v, Frame* fr) {
    auto c = rep_index_.find(v);
    if (c == rep_index_.end()) {
      ValueId idx = ir::kNone;
      for (ValueId x = v;;) {
        auto d = defs_.find(x);
        if (d == defs_.end() || d->second->kind != OpKind::Piece || d->second->operands.empty()) break;
        const Op& pc = *d->second;
        if (pc.part.kind == ir::PartitionSpec::Kind::Mma && pc.part.holder == ProcKind::Warp && pc.operands.size() == 2 &&
            f_.info(pc.operands[0]).rank == 1) {
          idx = pc.operands[1];
          break;
        }
        x = pc.operands[0];
      }
      c = rep_index_.emplace(v, idx).first;
    }
    if (c->second == ir::kNone) return -1;
    int64_t lane = index_of(c->second, fr);
    return lane >= 0 && lane <= INT16_MAX ? lane : -1;  // (a lane index; -1, every replica, is the safe side)
  }

  [[noreturn]] void race(const detail::Race& r) {
    const MemAccess& a = *r.access;
    const int32_t first = r.first, second = r.second;
    const int64_t fl = r.flat;
    const Buffer& b = *a.view.buffer();
    std::string coords;
    int64_t rest = fl;
    std::vector<int64_t> c(b.extents.size());
    for (size_t d = b.extents.size(); d-- > 0;) {
      c[d] = b.extents[d] > 0 ? rest % b.extents[d] : 0;
      rest = b.extents[d] > 0 ? rest / b.extents[d] : 0;
    }
    for (size_t d = 0; d < c.size(); ++d) coords += (d ? ", " : "") + std::to_string(c[d]);
    auto bn = buffer_names_.find(&b);
    std::string buf = bn != buffer_names_.end() ? bn->second : b.name.empty() ? std::string("a buffer") : b.name;
    res_.race = true;
    std::string through = value_name(names_, a.value);
    through = through == buf ? "" : " (through " + through + ")";
    throw std::runtime_error("data race on " + buf + "[" + coords + "]" + through + ": " +
                             describe(first) + " " + detail::access_verb(r.first_mode) + " it, and " + describe(second) + " " +
                             detail::access_verb(a.mode) +
                             " it, and no chain of events orders the two (on a GPU they may run at the same time)");
  }

  void count_elements(int64_t n) {
    res_.element_ops += n;
    if (res_.element_ops > opt_.max_element_ops)
      throw std::runtime_error("element-op limit exceeded (" + std::to_string(opt_.max_element_ops) +
                               " element operations): the IR does too much work for the CPU executor; use smaller sizes");
  }

  // ---- messages ----
  std::string where(Frame* fr) const {
    std::vector<std::string> parts;
    for (; fr; fr = fr->parent) {
      for (auto it = fr->procs.rbegin(); it != fr->procs.rend(); ++it)
        if (!(fr->loop && fr->loop->kind == OpKind::PFor && it == fr->procs.rbegin()))
          parts.push_back(std::string(proc_name(it->first)) + "=" + std::to_string(it->second));
      if (fr->loop)
        parts.push_back(value_name(names_, fr->loop->regions[0].args.at(0)) + "=" + std::to_string(fr->iter));
    }
    if (parts.empty()) return "";
    std::string s = " [";
    for (size_t i = parts.size(); i-- > 0;) s += parts[i] + (i ? ", " : "");
    return s + "]";
  }

  std::string describe(int32_t id) {
    const Node& n = nodes_[static_cast<size_t>(id)];
    const Op& op = *n.op;
    std::string s = op_text(names_, op, paths_[&op]) + where(n.frame);
    switch (n.role) {
      case Node::Role::Op: return s;
      case Node::Role::IterYield: return "yield of iteration " + std::to_string(n.iter) + " of " + s;
      case Node::Role::LoopDone: return "completion of " + s;
    }
    return s;
  }

  void check_finished() {
    std::vector<int32_t> stuck;
    for (size_t i = 0; i < nodes_.size(); ++i)
      if (nodes_[i].work && !nodes_[i].done) stuck.push_back(static_cast<int32_t>(i));
    if (stuck.empty()) return;
    std::string msg = "deadlock: nothing is ready but " + std::to_string(stuck.size()) +
                      " operation instance(s) never ran (a compiler bug: an event that can never complete)";
    // The unfinished preconditions of each stuck instance: the nodes that still count it as a waiter.
    std::unordered_map<int32_t, std::vector<int32_t>> waits;
    for (size_t i = 0; i < nodes_.size(); ++i)
      if (!nodes_[i].done)
        for (int32_t w : nodes_[i].waiters) waits[w].push_back(static_cast<int32_t>(i));
    size_t shown = 0;
    for (int32_t s : stuck) {
      if (shown++ == 8) {
        msg += "\n  ...";
        break;
      }
      msg += "\n  " + describe(s) + " waits for:";
      for (int32_t d : waits[s]) msg += "\n    " + describe(d);
    }
    throw std::runtime_error(msg);
  }

  const Function& f_;
  Names names_;
  std::mt19937_64 rng_;
  const ExecOptions& opt_;
  ExecResult& res_;
  std::unordered_map<const Op*, std::vector<int>> paths_;
  std::unordered_map<ValueId, const Op*> defs_;
  std::unordered_map<ValueId, std::vector<ProcKind>> proc_deps_;
  std::map<ProcKind, int64_t> extents_;
  const Op* skip_op_ = nullptr;
  std::deque<Node> nodes_;
  std::vector<LoopInfo> loops_;
  std::vector<std::unique_ptr<Frame>> frames_;
  std::vector<int32_t> ready_;
  // Race detection: completion order of each node (-1 while not done), and its preds.
  int32_t next_seq_ = 0;
  std::vector<int32_t> seq_;
  std::vector<std::pair<int32_t, int32_t>> pred_range_;  // offset, count in pred_pool_
  std::vector<int32_t> pred_pool_;
  static constexpr size_t kHubMin = 4;               // a reference to this many records gets a hub
  std::map<std::vector<int32_t>, int32_t> hubs_;     // records -> their hub node
  detail::AccessHistory history_;  // race detection: every element's accesses since its last write
  std::unordered_map<ValueId, ValueId> rep_index_;  // value -> index operand of its replicated row piece
  std::unordered_map<const Buffer*, std::string> buffer_names_;  // printed value names of allocs and params
};

}  // namespace

std::vector<EdgeId> list_edges(const ir::Function& f) {
  std::vector<EdgeId> out;
  std::vector<int> path;
  walk_ops(f.body, path, [&](const Op& op, const std::vector<int>& p) {
    if (!is_async(op.kind)) return;
    for (size_t i = 0; i < op.after.size(); ++i) out.push_back({EdgeId::Kind::After, p, static_cast<int>(i)});
    if (op.regions.size() != 1) return;
    const ir::Block& body = op.regions[0];
    if (op.kind == OpKind::For)
      for (size_t j = 1; j < body.args.size(); ++j)
        if (block_refers(body, body.args[j])) out.push_back({EdgeId::Kind::Carried, p, static_cast<int>(j - 1)});
    if (body.yield.value != ir::kNone) out.push_back({EdgeId::Kind::Yield, p, 0});
  });
  return out;
}

std::string describe_edge(const ir::Function& f, const EdgeId& e) {
  const Op* op = op_at(f, e.op_path);
  if (!op) return "edge at " + path_text(e.op_path) + " (no such op)";
  Names nm(f);
  std::string where = op_text(nm, *op, e.op_path);
  switch (e.kind) {
    case EdgeId::Kind::After:
      if (e.index < 0 || static_cast<size_t>(e.index) >= op->after.size()) return "after[" + std::to_string(e.index) + "] of " + where + " (no such entry)";
      return "after[" + std::to_string(e.index) + "] (" + ref_text(nm, op->after[static_cast<size_t>(e.index)]) + ") of " + where;
    case EdgeId::Kind::Carried: {
      const ir::Block* body = op->regions.empty() ? nullptr : &op->regions[0];
      if (!body || e.index < 0 || static_cast<size_t>(e.index) + 1 >= body->args.size())
        return "carried event " + std::to_string(e.index) + " of " + where + " (no such event)";
      if (body->args.size() == 2) return "carried event of " + where;  // the usual single %c
      int64_t d = ir::carried_distance(*op, static_cast<size_t>(e.index));
      return "carried event " + value_name(nm, body->args[static_cast<size_t>(e.index) + 1]) + " (distance " +
             std::to_string(d) + ") of " + where;
    }
    case EdgeId::Kind::Yield:
      return "yield" + (op->regions.empty() ? std::string() : " (" + ref_text(nm, op->regions[0].yield) + ")") + " of " + where;
  }
  return where;
}

ExecResult execute(const ir::Function& f, const std::vector<ExecArg>& args, uint64_t seed, const ExecOptions& opt) {
  ExecResult res;
  try {
    Executor ex(f, seed, opt, res);
    ex.run(args);
    res.ok = true;
  } catch (const std::exception& e) {
    res.ok = false;
    res.error = e.what();
  }
  return res;
}

}  // namespace loom::exec
