#include "sched/joint_smt.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>

#include <z3++.h>

namespace loom::sched {

namespace {

struct Encoder {
  const Problem& p;
  int I, L, n, T, W;
  z3::context& ctx;
  z3::solver& s;
  std::vector<z3::expr> t, w, r;
  std::vector<std::vector<z3::expr>> slot;  // slot[v][r] <=> t(v) mod I == r
  std::map<std::string, z3::expr> family;
  bool lazy_mode = true;
  // Constraints kept out of the solver until a model violates them (CEGAR): register liveness,
  // register-file and memory capacity, one per definition point of Q.
  struct Lazy {
    std::string fam;
    z3::expr e;
    bool added = false;
  };
  std::vector<Lazy> lazy;
  void add_lazy(const std::string& fam, const z3::expr& e) {
    if (lazy_mode) lazy.push_back({fam, e});
    else add(fam, e);
  }

  z3::expr guard(const std::string& name) {
    auto it = family.find(name);
    if (it != family.end()) return it->second;
    z3::expr a = ctx.bool_const(("family:" + name).c_str());
    family.emplace(name, a);
    return a;
  }
  void add(const std::string& fam, const z3::expr& e) { s.add(z3::implies(guard(fam), e)); }
  z3::expr num(long long x) { return ctx.int_val(static_cast<int64_t>(x)); }

  // fixed: issue times given (the hint phase); only the warps are variables.
  void variables(const Schedule* fixed, const std::vector<char>* only = nullptr) {
    const int N = static_cast<int>(p.ops.size());
    for (int v = 0; v < N; ++v) {
      const Op& o = p.ops[v];
      z3::expr wv = ctx.int_const(("w_" + std::to_string(v)).c_str());
      s.add(wv >= 0 && wv <= W - 1);  // Warp uniqueness: one integer warp per op
      w.push_back(wv);
      if (fixed && (!only || (*only)[v])) {
        int tv = fixed->time[v];
        t.push_back(num(tv));
        r.push_back(num(tv % I));
        std::vector<z3::expr> sv;
        for (int q = 0; q < I; ++q) sv.push_back(ctx.bool_val(q == tv % I));
        slot.push_back(sv);
        continue;
      }
      z3::expr tv = ctx.int_const(("t_" + std::to_string(v)).c_str());
      s.add(tv >= 0 && tv <= L - o.span());  // Completion
      t.push_back(tv);
      z3::expr kv = ctx.int_const(("k_" + std::to_string(v)).c_str());
      s.add(kv >= 0 && kv <= n - 1);
      z3::expr rsum = num(0);
      z3::expr_vector onehot(ctx);
      std::vector<z3::expr> sv;
      for (int q = 0; q < I; ++q) {
        z3::expr b = ctx.bool_const(("s_" + std::to_string(v) + "_" + std::to_string(q)).c_str());
        sv.push_back(b);
        onehot.push_back(b);
        if (q > 0) rsum = rsum + z3::ite(b, num(q), num(0));
      }
      std::vector<int> ones(I, 1);
      s.add(z3::pbeq(onehot, ones.data(), 1));
      z3::expr rv = ctx.int_const(("r_" + std::to_string(v)).c_str());
      s.add(rv == rsum);
      s.add(tv == kv * I + rv);
      r.push_back(rv);
      slot.push_back(sv);
    }
  }

  void dependence() {
    for (const Dep& d : p.deps) {
      long long need = d.delay - static_cast<long long>(I) * d.distance;
      add("dependence", t[d.to] - t[d.from] >= num(need));
      if (p.ops[d.from].spill > 0)
        add("spill", z3::implies(w[d.from] != w[d.to], t[d.to] - t[d.from] >= num(need + p.ops[d.from].spill)));
    }
  }

  void capacity() {
    const int N = static_cast<int>(p.ops.size());
    for (std::size_t f = 0; f < p.units.size(); ++f) {
      long long total = 0;
      for (const Op& o : p.ops)
        for (auto& row : o.rrt) total += row[f];
      if (total <= p.capacity[f]) continue;
      for (int q = 0; q < I; ++q) {
        z3::expr_vector lits(ctx);
        std::vector<int> coef;
        for (int v = 0; v < N; ++v) {
          std::vector<int> c(I, 0);
          for (int k = 0; k < p.ops[v].len; ++k) c[((q - k) % I + I) % I] += p.ops[v].rrt[k][f];
          for (int r = 0; r < I; ++r)
            if (c[r] > 0) {
              lits.push_back(slot[v][r]);
              coef.push_back(c[r]);
            }
        }
        if (!lits.empty()) add("capacity", z3::pble(lits, coef.data(), p.capacity[f]));
      }
    }
  }

  void warps() {
    const int N = static_cast<int>(p.ops.size());
    bool vl = p.has_variable_latency();
    int base = vl ? 1 : 0;
    if (vl)
      for (int v = 0; v < N; ++v) add("varlat", p.ops[v].variable_latency ? w[v] == 0 : w[v] >= 1);
    // Teams: every op of a team on the warp group of the team's first op.
    for (int v = 0; v < N; ++v)
      if (p.ops[v].team >= 0 && p.ops[v].team != v) add("team", w[v] == w[p.ops[v].team]);
    // Symmetry breaking among interchangeable warps: the first fixed-latency op takes warp `base`,
    // each later one at most one more than the largest warp used before it.
    z3::expr mx = num(base - 1);
    for (int v = 0; v < N; ++v) {
      if (vl && p.ops[v].variable_latency) continue;
      s.add(w[v] <= mx + 1);
      mx = z3::ite(w[v] > mx, w[v], mx);
    }
  }

  // The first copy of v's value that may be live in Q (values()): copies i < 0 are earlier
  // iterations' values still carried into Q, as far back as v's longest distance reaches.
  int first_copy(int v) const {
    int reach = 0;
    for (const Dep& d : p.deps)
      if (d.from == v) reach = std::max(reach, d.distance);
    return reach > 0 ? -(n - 1) - reach : 0;
  }

  // An upper bound on the terms of the liveness constraints (registers, the register file, each
  // memory), counted before any is built: one sum over the live copies per anchor copy, so the square
  // of the copies, and an op has a copy per iteration of Q and per iteration its value is carried
  // (values()). Deep carries made this the whole query's size (a distance of 64 took 1.4 GB). A
  // family whose every copy together fits its limit is not built (registers(), memory()): no terms.
  double liveness_terms() const {
    const int N = static_cast<int>(p.ops.size());
    double reg_copies = 0, reg_terms = 0, reg_sum = 0;
    std::vector<double> mem_copies(p.memories.size(), 0), mem_terms(p.memories.size(), 0), mem_sum(p.memories.size(), 0);
    for (int v = 0; v < N; ++v) {
      const int uses = static_cast<int>(std::count_if(p.deps.begin(), p.deps.end(), [&](const Dep& d) { return d.from == v; }));
      const double copies = static_cast<double>(n) - first_copy(v);
      const double each = copies * (2 + uses);  // a copy's definition, its uses and the ite around them
      if (p.ops[v].regs > 0) {
        reg_copies += copies;
        reg_terms += each;
        reg_sum += copies * p.ops[v].regs;
      }
      for (std::size_t m = 0; m < p.memories.size(); ++m)
        if (p.ops[v].mem[m] > 0) {
          mem_copies[m] += copies;
          mem_terms[m] += each;
          mem_sum[m] += copies * static_cast<double>(p.ops[v].mem[m]);
        }
    }
    double total = 0;
    if (reg_sum > p.reg_limit || (p.reg_file > 0 && reg_sum > p.reg_file)) total += reg_copies * (reg_terms + W);
    for (std::size_t m = 0; m < p.memories.size(); ++m)
      if (mem_sum[m] > static_cast<double>(p.memory_capacity[m])) total += mem_copies[m] * mem_terms[m];
    return total;
  }

  // Live values of Q: (op, copy) pairs with their definition time and use times.
  struct Value {
    int v, i;
    z3::expr def;
    std::vector<z3::expr> uses;
    bool beyond;
  };
  // Copies i < 0 are the values of iterations before Q that are still live in it (the running
  // loop's steady state, see "Liveness" above): copy i is used by copy i + δ at t(u) + (i + δ)*I,
  // which lies in Q for i >= -(stages - 1) - δ.
  std::vector<Value> values(bool (*want)(const Problem&, int)) {
    std::vector<Value> out;
    const int N = static_cast<int>(p.ops.size());
    for (int v = 0; v < N; ++v) {
      if (!want(p, v)) continue;
      for (int i = first_copy(v); i < n; ++i) {
        Value val{v, i, t[v] + i * I, {}, false};
        for (const Dep& d : p.deps) {
          if (d.from != v) continue;
          int j = i + d.distance;
          if (j < n) val.uses.push_back(t[d.to] + j * I);
          else val.beyond = true;
        }
        if (val.beyond || !val.uses.empty()) out.push_back(val);
      }
    }
    return out;
  }
  z3::expr live_at(const Value& val, const z3::expr& tau) {
    if (val.beyond) return val.def <= tau;  // live through the end of Q
    z3::expr any = ctx.bool_val(false);
    for (auto& u : val.uses) any = any || (u > tau);
    return val.def <= tau && any;
  }

  void registers() {
    auto vals = values([](const Problem& p, int v) { return p.ops[v].regs > 0; });
    if (vals.empty()) return;
    long long total = 0;
    for (auto& x : vals) total += p.ops[x.v].regs;
    bool need_limit = total > p.reg_limit;
    bool file = p.reg_file > 0 && total > p.reg_file;
    if (!need_limit && !file) return;
    std::vector<z3::expr> peak;
    if (file)
      for (int k = 0; k < W; ++k) {
        z3::expr R = ctx.int_const(("R_" + std::to_string(k)).c_str());
        s.add(R >= 0);
        peak.push_back(R);
      }
    // Pressure peaks at a definition: check each warp's sum at every definition on that warp.
    for (auto& anchor : vals) {
      z3::expr sum = num(0);
      for (auto& x : vals) {
        z3::expr same = (x.v == anchor.v) ? ctx.bool_val(true) : (w[x.v] == w[anchor.v]);
        sum = sum + z3::ite(same && live_at(x, anchor.def), num(p.ops[x.v].regs), num(0));
      }
      if (need_limit) add_lazy("registers", sum <= p.reg_limit);
      if (file) {
        z3::expr all = ctx.bool_val(true);
        for (int k = 0; k < W; ++k) all = all && z3::implies(w[anchor.v] == k, peak[k] >= sum);
        add_lazy("register-file", all);
      }
    }
    if (file) {
      z3::expr tot = num(0);
      for (auto& R : peak) tot = tot + R;
      add("register-file", tot <= p.reg_file);
    }
  }

  void memory() {
    for (std::size_t m = 0; m < p.memories.size(); ++m) {
      std::vector<Value> vals;
      for (auto& x : values([](const Problem&, int) { return true; }))
        if (p.ops[x.v].mem[m] > 0) vals.push_back(x);
      long long total = 0;
      for (auto& x : vals) total += p.ops[x.v].mem[m];
      if (total <= p.memory_capacity[m]) continue;
      for (auto& anchor : vals) {
        z3::expr sum = num(0);
        for (auto& x : vals) sum = sum + z3::ite(live_at(x, anchor.def), num(p.ops[x.v].mem[m]), num(0));
        add_lazy("memory:" + p.memories[m], sum <= num(p.memory_capacity[m]));
      }
    }
  }

  // executing(o)[q]: o executes at slot q (modulo I) in some iteration (one of o's slots within
  // len(o) before q); built once per op, constants folded (a fixed op's slots are constants).
  std::map<int, std::vector<z3::expr>> exec_cache;
  const std::vector<z3::expr>& executing(int o) {
    auto it = exec_cache.find(o);
    if (it != exec_cache.end()) return it->second;
    std::vector<z3::expr> ex;
    for (int q = 0; q < I; ++q) {
      z3::expr_vector any(ctx);
      bool certain = false;
      for (int k = 0; k < p.ops[o].len && k < I; ++k) {
        const z3::expr& b = slot[o][((q - k) % I + I) % I];
        if (b.is_true()) certain = true;
        else if (!b.is_false()) any.push_back(b);
      }
      ex.push_back(certain ? ctx.bool_val(true) : any.empty() ? ctx.bool_val(false) : z3::mk_or(any));
    }
    return exec_cache.emplace(o, ex).first->second;
  }

  // On the one-hot slots, not on slot differences: "v issues at slot q and shares o's warp"
  // excludes "o executes at q", one clause per slot, which the SAT core propagates directly
  // (bench/results/2026-12-04-cpu-z3-arith.md: with the pairwise no-overlap rows of capacity-1
  // units, redundant, also dropped, the Blackwell forward search 2.3-3.3 s -> 0.9-1.4 s, Hopper
  // forward 2.2-3.4 -> 1.9-2.3 s; Hopper backward 0.6-0.7 -> 0.7-0.9 s).
  void concurrency() {
    const int N = static_cast<int>(p.ops.size());
    for (int v = 0; v < N; ++v) {
      z3::expr blocks = ctx.bool_val(false);
      bool maybe = false;
      for (const Dep& d : p.deps) {
        if (d.to != v) continue;
        if (d.blocking) {
          blocks = ctx.bool_val(true);
          maybe = true;
        } else if (p.ops[d.from].spill > 0 && d.from != v) {
          blocks = blocks || (w[d.from] != w[v]);
          maybe = true;
        }
      }
      if (!maybe) continue;
      for (int o = 0; o < N; ++o) {
        if (o == v || p.ops[o].len == 0) continue;
        const z3::expr same = (blocks && w[o] == w[v]).simplify();
        if (same.is_false()) continue;
        if (p.ops[o].len >= I) {  // o executes on every slot
          add("concurrency", !same);
          continue;
        }
        const std::vector<z3::expr>& ex = executing(o);
        for (int q = 0; q < I; ++q)
          if (!slot[v][q].is_false() && !ex[q].is_false()) add("concurrency", z3::implies(same && slot[v][q], !ex[q]));
      }
    }
  }
};

}  // namespace

namespace {

// The largest liveness encoding built (Encoder::liveness_terms). The example graphs' largest,
// Hopper forward attention at its optimal II, is about 8,000 terms, the compiler's loops (FA2 from
// the IR) about 2,000; building, solving and freeing fa-forward-hopper with one value carried
// further took 2.4 s at 100,000 terms, 10 s at 310,000, 40 s at 650,000 and 170 s at 2.4 million
// on a 2 s limit (2026-12-05; Z3 checks its limits inside the solver, not while terms are built or
// freed). Past the bound the query answers "unknown" at once instead.
constexpr double kMaxLivenessTerms = 200000;

// One query on a fresh solver: the full problem, or (fixed != nullptr) the warp assignment for
// fixed issue times. Accumulates checks, rlimit and lazy counts into `out`.
z3::check_result run_query(const Problem& p, int ii, int length, const JointOptions& opt, const Schedule* fixed,
                           const std::function<double()>& elapsed, JointResult& out,
                           const std::vector<char>* only = nullptr) {
  z3::context ctx;
  z3::solver s(ctx);
  const int warps = opt.max_warps > 0 ? std::min(p.warps, opt.max_warps) : p.warps;
  Encoder e{p, ii, length, (length + ii - 1) / ii, 0, warps, ctx, s, {}, {}, {}, {}, {}};
  e.lazy_mode = opt.lazy && (!fixed || only);  // with all times fixed the liveness constraints are small
  e.T = (e.n - 1) * ii + length;
  if (const double terms = e.liveness_terms(); terms > kMaxLivenessTerms) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "the liveness constraints would take about %.3g terms at II %d, length %d (more than %.3g): "
                  "not built",
                  terms, ii, length, kMaxLivenessTerms);
    out.status = JointResult::Status::Unknown;
    out.reason = buf;
    return z3::unknown;
  }
  e.variables(fixed, only);
  e.dependence();
  e.capacity();
  e.warps();
  e.registers();
  e.memory();
  e.concurrency();
  const unsigned long long used_before = out.rlimit_used;
  auto rlimit_count = [&]() -> unsigned long long {
    try {
      z3::stats st = s.statistics();
      for (unsigned k = 0; k < st.size(); ++k)
        if (st.key(k) == "rlimit count")
          return static_cast<unsigned long long>(st.is_uint(k) ? st.uint_value(k) : st.double_value(k));
    } catch (const z3::exception&) {
    }
    return 0;
  };
  // One check under what is left of the budgets (a solver's rlimit statistic is cumulative, and
  // Z3's rlimit parameter applies to each check).
  auto check = [&] {
    z3::params prm(ctx);
    prm.set("random_seed", opt.seed);
    // Relevancy propagation off: on the attention graphs this makes the full query 4-7x faster
    // (Blackwell forward 58 s -> 8 s, Hopper 11 s -> 2.6 s); it does not change answers.
    prm.set("relevancy", 0u);
    // The simplex-based arithmetic solver (Z3's arith.solver=2) instead of the default (6): the
    // same answers in less time; on a 2-core machine over six random seeds the Blackwell forward
    // attention search takes 0.9-1.4 s instead of 1.0-2.0 s, Hopper forward 1.9-2.3 s instead of
    // 2.4-3.0, backward 0.7-0.9 s instead of 1.0-1.2 (bench/results/2026-12-04-cpu-z3-arith.md).
    prm.set("arith.solver", 2u);
    if (opt.rlimit > 0) {
      unsigned long long left = opt.rlimit > out.rlimit_used ? opt.rlimit - out.rlimit_used : 1;
      prm.set("rlimit", static_cast<unsigned>(std::min<unsigned long long>(left, 4000000000ULL)));
    }
    if (opt.max_seconds > 0) prm.set("timeout", static_cast<unsigned>(std::max(1.0, (opt.max_seconds - elapsed()) * 1000)));
    s.set(prm);
    z3::expr_vector assumptions(ctx);
    for (auto& [name, a] : e.family) assumptions.push_back(a);
    z3::check_result r = s.check(assumptions);
    out.checks++;
    out.rlimit_used = used_before + rlimit_count();
    return r;
  };
  // CEGAR: solve without the lazy constraints, add the ones the model violates, repeat. Sound and
  // complete: an unsat answer is unsat with a subset of the constraints; a sat answer's model
  // satisfies every lazy constraint. Each round adds at least one constraint, so it terminates.
  z3::check_result r;
  for (;;) {
    r = check();
    if (r != z3::sat) break;
    z3::model m = s.get_model();
    int violated = 0;
    for (auto& l : e.lazy) {
      if (l.added || m.eval(l.e, true).is_true()) continue;
      e.add(l.fam, l.e);
      l.added = true;
      violated++;
    }
    out.lazy_added += violated;
    if (violated == 0) break;
  }
  out.lazy_total += static_cast<int>(e.lazy.size());
  if (r == z3::sat) {
    out.status = JointResult::Status::Sat;
    z3::model m = s.get_model();
    Schedule& sc = out.schedule;
    sc.ii = ii;
    sc.length = length;
    sc.time.clear();
    sc.warp.clear();
    for (std::size_t v = 0; v < p.ops.size(); ++v) {
      sc.time.push_back(m.eval(e.t[v], true).get_numeral_int());
      sc.warp.push_back(m.eval(e.w[v], true).get_numeral_int());
    }
  } else if (r == z3::unsat) {
    out.status = JointResult::Status::Unsat;
    z3::expr_vector core = s.unsat_core();
    out.core.clear();
    for (unsigned k = 0; k < core.size(); ++k) {
      std::string nm = core[k].to_string();
      if (nm.size() > 1 && nm.front() == '|') nm = nm.substr(1, nm.size() - 2);
      if (nm.rfind("family:", 0) == 0) nm = nm.substr(7);
      out.core.push_back(nm);
    }
    std::sort(out.core.begin(), out.core.end());
  } else {
    out.status = JointResult::Status::Unknown;
    out.reason = s.reason_unknown();
  }
  return r;
}

}  // namespace

JointResult solve_joint(const Problem& p, int ii, int length, const JointOptions& opt) {
  auto start = std::chrono::steady_clock::now();
  std::function<double()> elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  JointResult out;
  // The hint phase: the given modulo schedule's issue times, only the warps searched. Sat is an
  // answer to the full query (the times satisfy every time constraint at this L); unsat says
  // nothing about other times, so the full query follows.
  if (opt.hint && opt.hint->time.size() == p.ops.size() && opt.hint->ii == ii && opt.hint->length <= length) {
    out.hint_tried = true;
    out.hints_tried++;
    z3::check_result r = run_query(p, ii, length, opt, opt.hint, elapsed, out);
    out.hint_seconds = elapsed();
    if (r != z3::unsat) {  // sat: the answer; unknown: the budget is spent
      out.hint_used = r == z3::sat;
      if (r == z3::unknown) out.reason = "hint phase: " + out.reason;
      out.seconds = elapsed();
      return out;
    }
    out.core.clear();
    out.status = JointResult::Status::Unknown;
    // Partial hint: keep only the times of ops on saturated units (every slot of the modular
    // reservation table full: their slots are the hard part), let the others move.
    std::vector<char> only(p.ops.size(), 0);
    int kept = 0;
    for (std::size_t f = 0; f < p.units.size(); ++f) {
      long long total = 0;
      for (const Op& o : p.ops)
        for (auto& row : o.rrt) total += row[f];
      if (total < static_cast<long long>(ii) * p.capacity[f]) continue;
      for (std::size_t v = 0; v < p.ops.size(); ++v)
        for (auto& row : p.ops[v].rrt)
          if (row[f] && !only[v]) {
            only[v] = 1;
            kept++;
          }
    }
    if (kept > 0 && kept < static_cast<int>(p.ops.size())) {
      out.hints_tried++;
      r = run_query(p, ii, length, opt, opt.hint, elapsed, out, &only);
      if (r != z3::unsat) {
        out.hint_used = r == z3::sat;
        if (r == z3::unknown) out.reason = "partial hint phase: " + out.reason;
        out.seconds = elapsed();
        return out;
      }
      out.core.clear();
      out.status = JointResult::Status::Unknown;
    }
  }
  run_query(p, ii, length, opt, nullptr, elapsed, out);
  out.seconds = elapsed();
  return out;
}

}  // namespace loom::sched
