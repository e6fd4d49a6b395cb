// Mutation test (issue 3, section 3): deleting any single event edge from GEMM's final IR must make
// the CPU executor produce a wrong result (or fail) — or the edge must be proven redundant by this
// test. This is what shows that the executor catches missing synchronization.
//
// Program: examples/gemm with small tiles (64 x 32 block tiles, one warpgroup, wgmma n = 32, K steps
// of 16, warp-specialized and pipelined 3 deep as in the example) at M=65, N=40, K=49: 2 x 2 blocks,
// the edge blocks partial (1 row, 8 columns), 4 K steps (the last with one column), so the 3-slot
// ring of each operand is reused (step 3 writes slot 0) and the write-after-read edges of the
// pipelined copies (their distance-3 carried event) are exercised. For EVERY edge of
// list_edges(lower_to_event_ir(...)):
//   1. random order: execute with ExecOptions::skip_edge on seeds 1..kMaxSeeds; caught at the first
//      seed whose outputs differ from the reference (or that fails);
//   2. forced order (After edges the random order did not catch): an op X waits for event W; with
//      the edge dropped, the test also makes W's op wait for X (or for X's enclosing loop in W's
//      block). That only removes schedules, so every run is still a legal run of the mutated IR — one
//      in which W happens after X, which uniform random choice almost never produces when W is ready
//      from the start and X runs at the end (e.g. the copy-in of C vs. the final copy into C.1). A
//      mismatch there catches the edge; a deadlock means W may still come before X through other
//      paths and proves nothing by itself;
//   3. data race (ExecOptions::detect_races, src/exec/executor.h RACES), for every edge: two
//      instances that access a common element, one writing, with no chain of events between them.
//      The check does not depend on the seed, so one run (seed 1) settles it. It catches what values
//      cannot show: the K loop's carried %c and the mma's `after [%c]` order the updates of one
//      accumulator, and integer sums commute, so every order gives the same result — but on a GPU
//      two unordered mma into the same registers are a data race. It also cross-checks the other
//      two methods: a mutated IR whose runs can differ from the original has two unordered
//      conflicting accesses (if every conflicting pair were ordered, every run would be equivalent
//      to one of the original IR, whose edges are a superset), so an edge caught by 1 or 2 without a
//      race means the detector missed one; and a race on an edge proven redundant by 4 means the
//      proof is unsound. Both fail the test;
//   4. proof of redundancy (edges none of 1-3 catches), by a static happens-before analysis of the IR
//      (HappensBefore below): with the edge removed, X still waits for the same event through
//      other edges (transitively: an op's completion implies its preconditions'; a loop's completion
//      or any reference to a pfor's events implies the loop started, i.e. its preconditions; every op
//      in a loop body starts after the loop started), or the edge is a loop's yield on which only the
//      function's own completion waits, or a precondition of a join (no work) that only the
//      function's completion waits for (execute() returns only after every instance has run, so no
//      output can depend on either).
// An edge that none of the four settles fails the test, printed with describe_edge. A redundancy
// proof for an edge that a seed, the forced order or the race check caught also fails (the analysis
// would be unsound). The unmutated IR must match and be race-free. The summary (total / caught by a
// mismatch / caught by a race only / proven redundant, with the reason for each) is printed.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "exec/executor.h"
#include "exec/inputs.h"
#include "exec/reference.h"
#include "passes/pipeline.h"
#include "test_util.h"

namespace loom::exec {
namespace {

using ir::EventRef;
using ir::Op;
using ir::OpKind;
using ir::ValueId;
using test::check_text;
using test::read_file;
using test::source_dir;

constexpr int kMaxSeeds = 30;        // random-order seeds per edge
constexpr int kForcedSeeds = 3;      // seeds of the forced-order run

std::string gemm_small_text() {
  std::string text = read_file(source_dir() + "/examples/gemm/gemm.loom");
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"U=128, V=256", "U=64, V=32"}, {"N_MMA=256", "N_MMA=32"}, {"G=2", "G=1"}, {"W=64", "W=16"}}) {
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    while (at != std::string::npos) {
      text.replace(at, from.size(), to);
      at = text.find(from, at + to.size());
    }
  }
  return text;
}

Op* op_at(ir::Function& f, const std::vector<int>& path) {
  ir::Block* b = &f.body;
  Op* op = nullptr;
  for (int i : path) {
    if (!b || i < 0 || static_cast<size_t>(i) >= b->ops.size()) return nullptr;
    op = &b->ops[static_cast<size_t>(i)];
    b = op->regions.empty() ? nullptr : &op->regions[0];
  }
  return op;
}
const Op* op_at(const ir::Function& f, const std::vector<int>& path) { return op_at(const_cast<ir::Function&>(f), path); }

// ---- static happens-before -------------------------------------------------------------------------
//
// Facts are statements "this event has completed" about event instances visible from the op being
// examined. A value defined in the op's block or an enclosing one names one instance from there
// (references resolve through the enclosing frames), so facts are keyed by value id:
//   Plain(v)   the copy/call/join/for event v;       Start(L)  loop L has started (its preconditions
//   All(E)     every element of event array E;                 completed and it expanded);
//   Elem(E, i) element E[i] (i: index value ids);    Carried(c) carried event c of its for loop
//                                                              (in the current iteration).
// Implications (all from executor.h / ir.h semantics, on the mutated IR):
//   Plain(copy/call/join v) => the facts of each of its remaining `after` references;
//   Plain(for v) => Start(v);  All(E), Elem(E, i) => Start(E) (every reference to E waits for it);
//   Start(L) => the facts of each of L's remaining `after` references;
//   and an op inside loop L's body starts only after Start(L) (the body is instantiated when L runs).
// Facts about loop bodies (a loop's completion implies its iterations' yields) are not used: they
// need the trip count to be positive; nor are implications through ops run once per processor
// (vectorized IR). So the analysis only under-approximates happens-before.
class HappensBefore {
 public:
  HappensBefore(const ir::Function& f, const EdgeId& dropped) : f_(f), dropped_(dropped) {
    names();
    std::vector<const Op*> loops;
    std::vector<int> path;
    index(f.body, loops, path);
    drop_op_ = op_at(f, dropped.op_path);
  }

  // Why the dropped edge is redundant, or "" when this analysis cannot show it.
  std::string redundant_because() {
    if (!drop_op_) return "";
    switch (dropped_.kind) {
      case EdgeId::Kind::After: return after_redundant();
      case EdgeId::Kind::Yield: return only_function_waits(drop_op_->result)
                                           ? "only the function's completion waits for this loop (no operation does)"
                                           : "";
      case EdgeId::Kind::Carried: return "";
    }
    return "";
  }

 private:
  using Fact = std::tuple<int, ValueId, std::vector<ValueId>>;  // kind, value, indices
  enum Kind { Plain, Start, All, Elem, Carried };

  void names() {
    std::vector<std::string> all = ir::value_names(f_);
    for (size_t v = 0; v < all.size(); ++v)
      if (!all[v].empty()) names_[static_cast<ValueId>(v)] = all[v];
  }
  std::string nm(ValueId v) const {
    auto it = names_.find(v);
    return it == names_.end() ? "%?" : it->second;
  }
  std::string ref_text(const EventRef& r) const {
    std::string s = nm(r.value);
    if (!r.indices.empty()) {
      s += "[";
      for (size_t i = 0; i < r.indices.size(); ++i) s += (i ? ", " : "") + (r.indices[i] == ir::kNone ? ":" : nm(r.indices[i]));
      s += "]";
    }
    return s;
  }
  std::string fact_text(const Fact& x) const {
    auto [k, v, idx] = x;
    switch (k) {
      case Plain: return nm(v);
      case Start: return "start of " + nm(v);
      case All: return nm(v) + "[:]";
      case Elem: return ref_text(EventRef{v, idx});
      case Carried: return "carried " + nm(v);
    }
    return "?";
  }

  void index(const ir::Block& b, std::vector<const Op*>& loops, std::vector<int>& path) {
    for (size_t i = 0; i < b.ops.size(); ++i) {
      const Op& op = b.ops[i];
      path.push_back(static_cast<int>(i));
      if (op.result != ir::kNone) def_[op.result] = &op;
      enclosing_[&op] = loops;
      for (const EventRef& r : op.after) consumers_[r.value].push_back(&op);
      if (!op.regions.empty()) {
        const ir::Block& body = op.regions[0];
        if (op.kind == OpKind::For)
          for (size_t j = 1; j < body.args.size(); ++j) carried_[body.args[j]] = {&op, static_cast<int>(j - 1)};
        if (body.yield.value != ir::kNone) yielded_by_[body.yield.value].push_back(&op);
        loops.push_back(&op);
        index(body, loops, path);
        loops.pop_back();
      }
      path.pop_back();
    }
  }

  bool dropped_after(const Op* op, size_t j) const {
    return dropped_.kind == EdgeId::Kind::After && op == drop_op_ && static_cast<int>(j) == dropped_.index;
  }

  // The fact an event reference stands for (nullopt: nothing usable).
  std::optional<Fact> fact_of(const EventRef& r) const {
    auto c = carried_.find(r.value);
    if (c != carried_.end()) {
      if (dropped_.kind == EdgeId::Kind::Carried && c->second.first == drop_op_ && c->second.second == dropped_.index)
        return std::nullopt;  // the cut carried event is just the start
      return Fact{Carried, r.value, {}};
    }
    auto d = def_.find(r.value);
    if (d == def_.end() || !is_async(d->second->kind)) return std::nullopt;
    if (d->second->kind == OpKind::PFor || f_.info(r.value).type == ir::Type::Events) {
      bool all = true;
      for (ValueId i : r.indices) all = all && i == ir::kNone;
      return all ? Fact{All, r.value, {}} : Fact{Elem, r.value, r.indices};
    }
    return Fact{Plain, r.value, {}};
  }

  // The facts that `x` implies directly.
  std::vector<Fact> implied(const Fact& x) const {
    std::vector<Fact> out;
    auto [k, v, idx] = x;
    auto d = def_.find(v);
    if (d == def_.end()) return out;
    const Op* op = d->second;
    // An op run once per processor (vectorized IR: an event array that is not a pfor's) resolves its
    // preconditions per processor; no implication is drawn from it.
    if (op->kind != OpKind::PFor && f_.info(v).type == ir::Type::Events) return out;
    auto afters = [&] {
      for (size_t j = 0; j < op->after.size(); ++j)
        if (!dropped_after(op, j))
          if (auto y = fact_of(op->after[j])) out.push_back(*y);
    };
    switch (k) {
      case Plain:
        if (op->kind == OpKind::For) out.push_back(Fact{Start, v, {}});
        else afters();
        break;
      case All:
      case Elem: out.push_back(Fact{Start, v, {}}); break;
      case Start: afters(); break;
      case Carried: break;
    }
    return out;
  }

  std::string after_redundant() {
    const Op* x = drop_op_;
    if (dropped_.index < 0 || static_cast<size_t>(dropped_.index) >= x->after.size()) return "";
    const std::string join_only =
        x->kind == OpKind::Join && only_function_waits(x->result)
            ? "a join (no work) that only the function's completion waits for: the edge orders no operation"
            : "";
    const EventRef& target_ref = x->after[static_cast<size_t>(dropped_.index)];
    std::optional<Fact> target = fact_of(target_ref);
    if (!target) return join_only;
    // Breadth-first from what X still waits for; `why` remembers how each fact was reached.
    std::map<Fact, std::string> why;
    std::vector<Fact> work;
    auto add = [&](const Fact& y, const std::string& how) {
      if (why.emplace(y, how).second) work.push_back(y);
    };
    for (size_t j = 0; j < x->after.size(); ++j)
      if (!dropped_after(x, j))
        if (auto y = fact_of(x->after[j])) add(*y, "after[" + std::to_string(j) + "] " + ref_text(x->after[j]));
    for (const Op* l : enclosing_.at(x)) add(Fact{Start, l->result, {}}, "inside the body of " + nm(l->result));
    for (size_t n = 0; n < work.size(); ++n) {
      Fact y = work[n];
      for (const Fact& z : implied(y)) add(z, why[y] + " => " + fact_text(z));
    }
    auto hit = why.find(*target);
    if (hit == why.end() && std::get<0>(*target) == Elem) hit = why.find(Fact{All, std::get<1>(*target), {}});
    if (hit == why.end()) return join_only;
    return "still ordered after " + fact_text(hit->first) + " via " + hit->second;
  }

  // Whether only the function's completion waits for event value `v`: nothing refers to it but the
  // function's result, the yields of loops of which the same holds, and joins (no work) of which the
  // same holds.
  bool only_function_waits(ValueId v) const {
    if (v == ir::kNone) return true;
    auto c = consumers_.find(v);
    if (c != consumers_.end())
      for (const Op* op : c->second)
        if (op->kind != OpKind::Join || !only_function_waits(op->result)) return false;
    auto y = yielded_by_.find(v);
    if (y != yielded_by_.end())
      for (const Op* loop : y->second)
        if (!only_function_waits(loop->result)) return false;
    return true;
  }

  const ir::Function& f_;
  EdgeId dropped_;
  const Op* drop_op_ = nullptr;
  std::unordered_map<ValueId, std::string> names_;
  std::unordered_map<ValueId, const Op*> def_;
  std::unordered_map<ValueId, std::pair<const Op*, int>> carried_;  // carried event -> its for loop, which one
  std::unordered_map<const Op*, std::vector<const Op*>> enclosing_;
  std::unordered_map<ValueId, std::vector<const Op*>> consumers_;   // value -> ops whose `after` names it
  std::unordered_map<ValueId, std::vector<const Op*>> yielded_by_;  // value -> loops whose body yields it
};

// ---- forced order ------------------------------------------------------------------------------------

// The IR with the reverse constraint for After edge `e` (X waits for W): W's op also waits for X, or
// for the op enclosing X in W's block. nullopt when W is not an op's event (e.g. a carried %c) or X
// has no event to wait for.
std::optional<ir::Function> forced_order(const ir::Function& f, const EdgeId& e) {
  if (e.kind != EdgeId::Kind::After) return std::nullopt;
  const Op* x = op_at(f, e.op_path);
  if (!x || e.index < 0 || static_cast<size_t>(e.index) >= x->after.size()) return std::nullopt;
  ValueId w = x->after[static_cast<size_t>(e.index)].value;
  // Find W's op: the deepest block on X's path that defines w.
  ir::Function g = f;
  ir::Block* b = &g.body;
  for (size_t depth = 0; depth < e.op_path.size() && b; ++depth) {
    for (Op& op : b->ops) {
      if (op.result != w) continue;
      const Op& xp = b->ops[static_cast<size_t>(e.op_path[depth])];  // X, or the loop around X, here
      if (xp.result == ir::kNone || &xp == &op) return std::nullopt;
      EventRef r{xp.result, {}};
      if (f.info(xp.result).type == ir::Type::Events) r.indices.assign(f.info(xp.result).event_dims.size(), ir::kNone);
      op.after.push_back(r);
      return g;
    }
    Op& next = b->ops[static_cast<size_t>(e.op_path[depth])];
    b = next.regions.empty() ? nullptr : &next.regions[0];
  }
  return std::nullopt;
}

TEST(Mutation, EveryEdgeOfGemmIsNeededOrProvenRedundant) {
  auto t0 = std::chrono::steady_clock::now();
  auto r = check_text(gemm_small_text(), "gemm_small.loom");
  ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
  ir::Function f = lower_to_event_ir(r.program, *r.tree);
  const std::map<std::string, int64_t> sizes = {{"M", 65}, {"N", 40}, {"K", 49}};

  struct SeedData {
    Args in, ref;
  };
  std::vector<SeedData> seeds;
  for (uint64_t s = 1; s <= kMaxSeeds; ++s) {
    SeedData d;
    d.in = make_inputs(r.program, *r.tree, sizes, s);
    d.ref = copy_args(d.in);
    run_reference(r.program, *r.tree, d.ref);
    seeds.push_back(std::move(d));
  }
  ExecOptions base;
  base.proc_extents[ProcKind::Warp] = 4;
  base.proc_extents[ProcKind::Thread] = 32;
  // 0 = match; 1 = mismatch; 2 = executor error other than a deadlock or a race; 3 = deadlock;
  // 4 = data race (with ExecOptions::detect_races).
  auto run = [&](const ir::Function& g, const ExecOptions& opt, uint64_t s, std::string* detail) {
    Args got = copy_args(seeds[s - 1].in);
    ExecResult res = execute(g, exec_args(got), s, opt);
    if (!res.ok) {
      if (detail) *detail = res.error.substr(0, res.race ? 1000 : 300);
      return res.race ? 4 : res.error.rfind("deadlock", 0) == 0 ? 3 : 2;
    }
    auto mm = compare_outputs(seeds[s - 1].ref, got);
    if (mm && detail) *detail = mm->describe();
    return mm ? 1 : 0;
  };
  ExecOptions racy = base;
  racy.detect_races = true;
  // The unmutated IR matches and has no race (otherwise nothing below means anything).
  for (uint64_t s = 1; s <= 3; ++s) {
    std::string d;
    ASSERT_EQ(run(f, base, s, &d), 0) << "the unmutated GEMM IR fails on seed " << s << ": " << d;
    ASSERT_EQ(run(f, racy, s, &d), 0) << "the unmutated GEMM IR fails with race detection on seed " << s << ": " << d;
  }

  const std::vector<EdgeId> edges = list_edges(f);
  ASSERT_FALSE(edges.empty());
  int by_seed = 0, by_force = 0, by_race = 0, max_seed = 0;
  std::vector<std::pair<std::string, std::string>> redundant;  // edge, reason
  std::vector<std::string> unsettled, unsound, forced, raced, missed_races;
  for (const EdgeId& e : edges) {
    ExecOptions opt = base;
    opt.skip_edge = e;
    const std::string proof = HappensBefore(f, e).redundant_because();
    // 3. the race check (seed-independent: one run), for every edge.
    ExecOptions ropt = racy;
    ropt.skip_edge = e;
    std::string race;
    const bool has_race = run(f, ropt, 1, &race) == 4;
    int hit = 0;
    std::string detail;
    for (uint64_t s = 1; s <= kMaxSeeds && !hit; ++s)
      if (run(f, opt, s, &detail) != 0) hit = static_cast<int>(s);
    if (hit) {
      ++by_seed;
      max_seed = std::max(max_seed, hit);
      if (!proof.empty())
        unsound.push_back(describe_edge(f, e) + "\n      proof: " + proof + "\n      but seed " + std::to_string(hit) + ": " + detail);
      if (!has_race) missed_races.push_back(describe_edge(f, e) + "\n      seed " + std::to_string(hit) + ": " + detail);
      continue;
    }
    if (std::optional<ir::Function> g = forced_order(f, e)) {
      bool forced_hit = false;
      for (uint64_t s = 1; s <= kForcedSeeds && !forced_hit; ++s) {
        int k = run(*g, opt, s, &detail);
        forced_hit = k == 1 || k == 2;
      }
      if (forced_hit) {
        ++by_force;
        forced.push_back(describe_edge(f, e) + "\n      " + detail);
        if (!proof.empty())
          unsound.push_back(describe_edge(f, e) + "\n      proof: " + proof + "\n      but the forced order fails: " + detail);
        if (!has_race) missed_races.push_back(describe_edge(f, e) + "\n      the forced order fails: " + detail);
        continue;
      }
    }
    if (has_race) {
      ++by_race;
      raced.push_back(describe_edge(f, e) + "\n      " + race);
      if (!proof.empty()) unsound.push_back(describe_edge(f, e) + "\n      proof: " + proof + "\n      but: " + race);
      continue;
    }
    if (!proof.empty()) redundant.emplace_back(describe_edge(f, e), proof);
    else unsettled.push_back(describe_edge(f, e));
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::ostringstream summary;
  summary << "mutation test, GEMM (64x32 tiles, G=1, W=16, pipeline(3)) at M=65,N=40,K=49: " << edges.size() << " edges; "
          << by_seed + by_force << " caught by a mismatch (" << by_seed << " by random order within " << max_seed << " of "
          << kMaxSeeds << " seeds, " << by_force << " only by the forced order); " << by_race
          << " caught by a data race only; " << redundant.size() << " proven redundant; " << unsettled.size() << " unsettled; "
          << secs << " s\n";
  for (const std::string& e : forced) summary << "  caught by the forced order: " << e << "\n";
  for (const std::string& e : raced) summary << "  caught by a data race: " << e << "\n";
  for (const auto& [edge, why] : redundant) summary << "  redundant: " << edge << "\n      " << why << "\n";
  std::cout << summary.str();
  for (const std::string& e : unsettled)
    ADD_FAILURE() << "no seed catches the deletion of this edge, it causes no data race and it is not proven redundant:\n  " << e;
  for (const std::string& e : unsound) ADD_FAILURE() << "redundancy proof contradicted by the executor:\n  " << e;
  for (const std::string& e : missed_races)
    ADD_FAILURE() << "the deletion of this edge changes results, but the race detector finds no race (it misses one):\n  " << e;
  EXPECT_EQ(static_cast<size_t>(by_seed + by_force + by_race) + redundant.size() + unsettled.size(), edges.size());
}

}  // namespace
}  // namespace loom::exec
