// Vectorization: flattens pfor loops over WARPGROUP, WARP and THREAD. See vectorize.h.
#include "passes/vectorize.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

namespace loom {

namespace {

using ir::Block;
using ir::EventRef;
using ir::Function;
using ir::Op;
using ir::OpKind;
using ir::Type;
using ir::ValueId;
using ir::for_each_ref;

bool implicit_level(ProcKind k) { return k == ProcKind::Warpgroup || k == ProcKind::Warp || k == ProcKind::Thread; }

bool holds_pfor(const Block& b) {
  for (const Op& op : b.ops) {
    if (op.kind == OpKind::PFor) return true;
    for (const Block& r : op.regions)
      if (holds_pfor(r)) return true;
  }
  return false;
}

class Vectorizer {
 public:
  explicit Vectorizer(Function& f) : f_(f) {
    std::function<void(const Block&)> scan = [&](const Block& b) {
      for (const Op& op : b.ops) {
        if (op.kind == OpKind::Const && op.result != ir::kNone) consts_[op.result] = op.ival;
        for (const Block& r : op.regions) scan(r);
      }
    };
    scan(f_.body);
  }

  void run() {
    block(f_.body);
    if (flattened_) prune();
  }

 private:
  // Deepest nesting first: a block's loop bodies are vectorized before its own pfors are flattened.
  void block(Block& b) {
    for (Op& op : b.ops)
      for (Block& r : op.regions) block(r);
    for (size_t i = 0; i < b.ops.size(); ++i) {
      Op& op = b.ops[i];
      if (op.kind != OpKind::PFor || !implicit_level(op.proc)) continue;
      std::string why = cannot_flatten(op);
      if (!why.empty()) {
        op.origin += (op.origin.empty() ? "" : " ") + std::string("[not vectorized: ") + why + "]";
        continue;
      }
      i = flatten(b, i) - 1;
      flattened_ = true;
    }
  }

  // Why pfor `op` stays ("" when it can be flattened).
  std::string cannot_flatten(const Op& op) const {
    if (op.operands.size() != 1 || op.regions.size() != 1 || op.regions[0].args.size() != 1) return "malformed loop";
    auto c = consts_.find(op.operands[0]);
    if (c == consts_.end()) return "the trip count is not a compile-time constant";
    if (c->second <= 0) return "the trip count is not positive";
    auto known = f_.proc_extents.find(op.proc);
    if (known != f_.proc_extents.end() && known->second != c->second)
      return "the trip count " + std::to_string(c->second) + " differs from another loop's " + std::to_string(known->second) +
             " over " + proc_name(op.proc);
    const Block& body = op.regions[0];
    if (holds_pfor(body)) return "its body still holds a pfor";
    // An alloc of the body becomes one buffer for all processors unless it depends on %p. Shared
    // and global memory are one per block anyway (every processor copies the same data into it in
    // the examples); a private (REGISTER/NONE) buffer must stay private.
    std::set<ValueId> on_p{body.args[0]};
    for (const Op& x : body.ops) {
      bool dep = false;
      for (ValueId u : x.operands) dep = dep || on_p.count(u) > 0;
      for (ValueId u : x.part.block) dep = dep || on_p.count(u) > 0;
      if (dep && x.result != ir::kNone) on_p.insert(x.result);
      if (x.kind == OpKind::Alloc && !dep && x.mem != MemKind::Shared && x.mem != MemKind::Global)
        return "alloc %" + f_.info(x.result).name + " (" + mem_name(x.mem) + ") does not depend on the " + proc_name(op.proc) +
               " index and would be shared by all processors";
    }
    for (const Op& x : body.ops)
      if (is_async(x.kind) && x.result != ir::kNone && f_.info(x.result).type == Type::Events) {
        ProcKind inner = f_.info(x.result).event_dims.at(0);
        if (static_cast<int>(inner) <= static_cast<int>(op.proc))
          return std::string("its body has events over ") + proc_name(inner) + ", not below " + proc_name(op.proc);
      }
    return "";
  }

  ValueId new_event(const std::string& name) { return f_.add_value(ir::ValueInfo{Type::Event, name}); }

  // Flattens the pfor at b.ops[i] into `b`; returns the index just past the ops that replace it.
  size_t flatten(Block& b, size_t i) {
    Op loop = std::move(b.ops[i]);
    Block body = std::move(loop.regions[0]);
    const ProcKind proc = loop.proc;
    const ValueId p = body.args[0];
    const int64_t trip = consts_.at(loop.operands[0]);

    std::set<ValueId> promoted;
    for (const Op& x : body.ops)
      if (is_async(x.kind) && x.result != ir::kNone) promoted.insert(x.result);

    // Inside the body every promoted event is this processor's element.
    for_each_ref(body, [&](EventRef& r) {
      if (promoted.count(r.value)) r.indices.insert(r.indices.begin(), p);
    });

    // The iteration's completion must be a promoted event.
    EventRef y = body.yield;
    if (y.value == ir::kNone || !promoted.count(y.value)) {
      Op j;
      j.kind = OpKind::Join;
      j.result = new_event("y");
      if (y.value != ir::kNone) j.after.push_back(y);
      j.loc = loop.loc;
      j.origin = loop.origin;
      body.ops.push_back(std::move(j));
      promoted.insert(body.ops.back().result);
      y = EventRef{body.ops.back().result, {p}};
    }

    // The loop's preconditions: every body op that waits for no body op waits for them.
    std::vector<Op> out;
    std::optional<EventRef> pre;
    if (loop.after.size() == 1) {
      pre = loop.after[0];
    } else if (loop.after.size() > 1) {
      Op j;
      j.kind = OpKind::Join;
      j.result = new_event("s");
      j.after = loop.after;
      j.loc = loop.loc;
      j.origin = loop.origin;
      pre = EventRef{j.result, {}};
      out.push_back(std::move(j));
    }
    if (pre)
      for (Op& x : body.ops) {
        if (!is_async(x.kind)) continue;
        bool waits_inside = false;
        for (const EventRef& r : x.after) waits_inside = waits_inside || promoted.count(r.value) > 0;
        if (!waits_inside) x.after.push_back(*pre);
      }

    // Promote the body's events with the processor dimension (outermost first).
    for (ValueId v : promoted) {
      ir::ValueInfo& info = f_.values.at(static_cast<size_t>(v));
      if (info.type == Type::Event) info.event_dims.clear();
      info.type = Type::Events;
      info.event_dims.insert(info.event_dims.begin(), proc);
    }

    // %p = proc_index P, then the body.
    Op pi;
    pi.kind = OpKind::ProcIndex;
    pi.result = p;
    pi.proc = proc;
    pi.loc = loop.loc;
    pi.origin = loop.origin;
    out.push_back(std::move(pi));
    for (Op& x : body.ops) out.push_back(std::move(x));

    const size_t n = out.size();
    b.ops.erase(b.ops.begin() + static_cast<std::ptrdiff_t>(i));
    b.ops.insert(b.ops.begin() + static_cast<std::ptrdiff_t>(i), std::make_move_iterator(out.begin()),
                 std::make_move_iterator(out.end()));

    // Consumers of the loop's event array now name the promoted yield: E[x] -> Y with x leading.
    if (loop.result != ir::kNone) {
      auto replace = [&](EventRef& r) {
        if (r.value != loop.result) return;
        EventRef to = y;
        to.indices[0] = r.indices.empty() ? ir::kNone : r.indices[0];
        r = to;
      };
      for_each_ref(f_.body, replace);
      replace(f_.result);
    }
    f_.proc_extents[proc] = trip;
    return i + n;
  }

  // ---- pruning of preconditions implied by other preconditions of the same op ----
  // A fact "event v, elements idx completed" (idx: an index value, or kNone = all, per dimension),
  // with proc_index values naming the processors of the op being examined.
  using Fact = std::pair<ValueId, std::vector<ValueId>>;

  // The facts that the completion of `x` implies directly: the preconditions of its op (a copy,
  // call, join or for), with the op's own processor indices replaced by x's indices.
  void implied(const Fact& x, std::vector<Fact>& out) const {
    auto d = def_.find(x.first);
    if (d == def_.end()) return;
    const Op& op = *d->second;
    if (op.kind != OpKind::Copy && op.kind != OpKind::Call && op.kind != OpKind::Join && op.kind != OpKind::For) return;
    const ir::ValueInfo& info = f_.info(x.first);
    std::vector<ProcKind> dims = info.type == Type::Events ? info.event_dims : std::vector<ProcKind>{};
    if (dims.size() != x.second.size()) return;
    for (const EventRef& r : op.after) {
      Fact y{r.value, {}};
      bool ok = true;
      for (ValueId j : r.indices) {
        if (j == ir::kNone) {
          y.second.push_back(ir::kNone);
          continue;
        }
        auto jd = def_.find(j);
        if (jd == def_.end() || jd->second->kind != OpKind::ProcIndex) {
          ok = false;  // an index computed some other way: no conclusion
          break;
        }
        auto at = std::find(dims.begin(), dims.end(), jd->second->proc);
        y.second.push_back(at == dims.end() ? j : x.second[static_cast<size_t>(at - dims.begin())]);
      }
      if (ok) out.push_back(std::move(y));
    }
  }

  static bool covers(const Fact& a, const Fact& b) {
    if (a.first != b.first || a.second.size() != b.second.size()) return false;
    for (size_t d = 0; d < a.second.size(); ++d)
      if (a.second[d] != ir::kNone && a.second[d] != b.second[d]) return false;
    return true;
  }

  // Drops each `after` entry of an op that another remaining entry implies (transitively): the
  // dependence analysis orders every body op after the loop's preconditions; once flattened, those
  // orders show up as point-wise or broadcast chains through the promoted events.
  void prune() {
    def_.clear();
    std::function<void(const Block&)> scan = [&](const Block& b) {
      for (const Op& op : b.ops) {
        if (op.result != ir::kNone) def_[op.result] = &op;
        for (const Block& r : op.regions) scan(r);
      }
    };
    scan(f_.body);
    std::function<void(Block&)> visit = [&](Block& b) {
      for (Op& op : b.ops) {
        if (op.after.size() > 1) prune_op(op);
        for (Block& r : op.regions) visit(r);
      }
    };
    visit(f_.body);
  }

  void prune_op(Op& op) {
    std::vector<bool> keep(op.after.size(), true);
    for (size_t i = 0; i < op.after.size(); ++i) {
      Fact target{op.after[i].value, op.after[i].indices};
      std::set<Fact> seen;
      std::vector<Fact> work;
      for (size_t j = 0; j < op.after.size(); ++j)
        if (j != i && keep[j]) {
          Fact y{op.after[j].value, op.after[j].indices};
          if (seen.insert(y).second) work.push_back(y);
        }
      bool found = false;
      for (size_t n = 0; n < work.size() && !found && n < 4096; ++n) {
        if (covers(work[n], target)) {
          found = true;
          break;
        }
        std::vector<Fact> next;
        implied(work[n], next);
        for (Fact& y : next)
          if (seen.insert(y).second) work.push_back(std::move(y));
      }
      if (found) keep[i] = false;
    }
    std::vector<EventRef> out;
    for (size_t i = 0; i < op.after.size(); ++i)
      if (keep[i]) out.push_back(op.after[i]);
    op.after = std::move(out);
  }

  Function& f_;
  std::unordered_map<ValueId, int64_t> consts_;
  std::unordered_map<ValueId, const Op*> def_;
  bool flattened_ = false;
};

}  // namespace

void vectorize(ir::Function& f) { Vectorizer(f).run(); }

}  // namespace loom
