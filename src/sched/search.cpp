#include "sched/search.h"

#include <functional>
#include <set>

#include <algorithm>
#include <chrono>
#include <ctime>

#include "sched/joint_smt.h"
#include "sched/modulo_ilp.h"

namespace loom::sched {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Facts that rule out every schedule at every II, found without a solver.
std::string universal_refutation(const Problem& p, bool ws) {
  if (!ws) return {};
  bool vl = p.has_variable_latency();
  bool fixed = false;
  for (const Op& o : p.ops) fixed |= !o.variable_latency;
  if (vl && fixed && p.warps < 2)
    return "variable-latency ops need their own warp group but the machine has only " + std::to_string(p.warps);
  for (std::size_t v = 0; v < p.ops.size(); ++v) {
    bool used = false;
    for (const Dep& d : p.deps) used |= d.from == static_cast<int>(v);
    if (used && p.ops[v].regs > p.reg_limit)
      return "node '" + p.ops[v].name + "' needs " + std::to_string(p.ops[v].regs) +
             " registers/thread while live, the warp-group limit is " + std::to_string(p.reg_limit);
  }
  return {};
}

}  // namespace

int groups_used(const Schedule& s) {
  std::set<int> g(s.warp.begin(), s.warp.end());
  return static_cast<int>(g.size());
}

namespace {

// How a joint query was answered, for its step's text: solver calls, liveness constraints added
// by CEGAR, and what the hint (`whose` times) did.
std::string how_solved(const JointResult& j, const std::string& whose) {
  std::string how = std::to_string(j.checks) + " checks, " + std::to_string(j.lazy_added) + "/" +
                    std::to_string(j.lazy_total) + " liveness constraints added";
  if (j.hint_tried)
    how += j.hint_used ? (j.hints_tried == 1 ? "; warps for " + whose + " schedule"
                                             : "; " + whose + " times on saturated units kept")
                       : "; hints refuted";
  return how;
}

// The secondary objective (search.h): fewer warp groups at the schedule's (II, L), while the
// budgets last. res.schedule is replaced by each satisfying answer.
void fewer_groups(const Problem& p, const SearchOptions& opt, unsigned long long budget,
                  const std::function<double()>& elapsed, SearchResult& res) {
  res.groups = groups_used(res.schedule);
  const int least = p.has_variable_latency() ? 2 : 1;
  const double deadline = std::min(opt.time_limit, elapsed() + opt.groups_time_limit);
  const unsigned long long own = opt.groups_rlimit ? opt.groups_rlimit
                                                   : static_cast<unsigned long long>(SearchOptions::kRlimitPerSecond * opt.groups_time_limit);
  const unsigned long long stop = std::min(budget, res.rlimit_used + own);
  while (res.groups > least) {
    double tleft = deadline - elapsed();
    if (tleft <= 0 || res.rlimit_used >= stop) return;
    JointOptions jo;
    jo.seed = opt.seed;
    jo.max_seconds = std::max(0.05, tleft);
    jo.rlimit = std::max<unsigned long long>(1, stop - res.rlimit_used);
    jo.max_warps = res.groups - 1;
    Schedule hint = res.schedule;
    jo.hint = &hint;
    const int ii = res.schedule.ii, L = res.schedule.length;
    JointResult j = solve_joint(p, ii, L, jo);
    res.smt_calls++;
    res.smt_seconds += j.seconds;
    res.rlimit_used += j.rlimit_used;
    const std::string at_most = "at most " + std::to_string(jo.max_warps) + " warp groups: ";
    if (j.status == JointResult::Status::Sat) {
      res.steps.push_back({ii, L, "smt", at_most + "sat (" + how_solved(j, "the last") + ")", j.seconds});
      res.schedule = j.schedule;
      res.groups = groups_used(res.schedule);
      continue;
    }
    if (j.status == JointResult::Status::Unsat) {
      res.steps.push_back({ii, L, "smt", at_most + "unsat [" + join(j.core) + "] (" + how_solved(j, "the last") + ")", j.seconds});
      res.groups_minimal = true;
    } else {
      res.steps.push_back({ii, L, "smt", at_most + "unknown (" + j.reason + ")", j.seconds});
    }
    return;
  }
  res.groups_minimal = true;  // as few as the variable-latency rule allows
}

}  // namespace

SearchResult search_schedule(const Problem& p, const SearchOptions& opt) {
  auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  SearchResult res;
  res.bounds = ii_bounds(p);
  const int mii = res.bounds.mii();
  unsigned long long budget = opt.rlimit ? opt.rlimit
                                         : static_cast<unsigned long long>(SearchOptions::kRlimitPerSecond *
                                                                           std::max(1.0, opt.time_limit));
  int max_ii = opt.max_ii;
  if (max_ii <= 0) {
    long long seq = 0;
    for (const Op& o : p.ops) seq += o.span() + o.spill;
    for (const Dep& d : p.deps) seq += d.delay;
    max_ii = static_cast<int>(std::min<long long>(std::max<long long>(mii, seq + 1), 100000));
  }
  std::string proof = "II >= " + std::to_string(mii) + " by ";
  proof += res.bounds.res_mii >= res.bounds.rec_mii
               ? "ResMII (unit " + (res.bounds.res_unit.empty() ? std::string("none") : res.bounds.res_unit) + ")"
               : "RecMII (cycle " + res.bounds.rec_cycle + ")";
  if (mii > 1) res.steps.push_back({1, 0, "bounds", "II < " + std::to_string(mii) + " refuted: " + proof.substr(proof.find("by ") + 3), 0});

  if (std::string why = universal_refutation(p, opt.warp_specialize); !why.empty()) {
    res.infeasible = why;
    res.steps.push_back({0, 0, "check", "no schedule at any II: " + why, 0});
    res.seconds = elapsed();
    return res;
  }

  bool proven = true;        // every smaller (I, L) was refuted
  bool unconditional = true; // ... without Algorithm 1's stage rule
  std::vector<std::string> notes;
  std::vector<std::string> last_core;
  for (int ii = mii; ii <= max_ii; ++ii) {
    double left = opt.time_limit - elapsed();
    if (left <= 0) {
      res.budget_exhausted = true;
      break;
    }
    ModuloResult m = optimal_modulo_schedule(p, ii, left, opt.ilp_max_nodes);
    res.ilp_calls++;
    res.ilp_seconds += m.seconds;
    if (m.status == Ilp::Status::Infeasible) {
      res.steps.push_back({ii, 0, "modulo-ilp", "infeasible (no modulo schedule)", m.seconds});
      continue;
    }
    if (m.status == Ilp::Status::Unknown) {
      res.steps.push_back({ii, 0, "modulo-ilp", "unknown (time or node limit)", m.seconds});
      proven = false;
      unconditional = false;
      notes.push_back("the modulo ILP at II=" + std::to_string(ii) + " ran out of its budget");
      continue;
    }
    const Schedule& M = m.schedule;
    bool len_proven = m.status == Ilp::Status::Optimal;
    res.steps.push_back({ii, M.length, "modulo-ilp",
                         std::string(len_proven ? "optimal" : "feasible (limit; length not proven minimal)") +
                             " L=" + std::to_string(M.length) + " (" + m.method + ", lower bound " +
                             std::to_string(m.lower_bound) + ", " + std::to_string(m.solves) + " CBC solves)",
                         m.seconds});
    if (!len_proven) notes.push_back("the minimal length at II=" + std::to_string(ii) + " is not proven");
    if (!opt.warp_specialize) {
      res.found = true;
      res.schedule = M;
      res.optimal = proven && len_proven;
      res.unconditional = res.optimal && unconditional;
      break;
    }
    const int stages = M.stages();
    const int lmax = (stages + opt.extra_stages) * ii;
    bool found = false;
    for (int L = M.length; L <= lmax; ++L) {
      double tleft = opt.time_limit - elapsed();
      if (tleft <= 0 || res.rlimit_used >= budget) {
        res.budget_exhausted = true;
        break;
      }
      JointOptions jo;
      jo.seed = opt.seed;
      jo.max_seconds = std::max(0.05, tleft / 2);
      jo.rlimit = std::max<unsigned long long>(1, (budget - res.rlimit_used) / 2);
      // The ILP's schedule as a hint at its own length (at a larger L with the same stage count
      // the fixed-times subproblem is the same one, already refuted).
      if (L == M.length) jo.hint = &M;
      JointResult j = solve_joint(p, ii, L, jo);
      res.smt_calls++;
      res.smt_seconds += j.seconds;
      res.rlimit_used += j.rlimit_used;
      const std::string how = how_solved(j, "the ILP's");
      if (j.status == JointResult::Status::Sat) {
        res.steps.push_back({ii, L, "smt", "sat (" + how + ")", j.seconds});
        res.found = true;
        res.schedule = j.schedule;
        found = true;
        if (opt.minimize_groups) fewer_groups(p, opt, budget, elapsed, res);
        res.optimal = proven && len_proven;
        res.unconditional = res.optimal && unconditional;
        break;
      }
      if (j.status == JointResult::Status::Unsat) {
        res.steps.push_back({ii, L, "smt", "unsat [" + join(j.core) + "] (" + how + ")", j.seconds});
        last_core = j.core;
        continue;
      }
      res.steps.push_back({ii, L, "smt", "unknown (" + j.reason + ")", j.seconds});
      proven = false;
      notes.push_back("the SMT query at II=" + std::to_string(ii) + ", L=" + std::to_string(L) + " hit its budget (" +
                      j.reason + ")");
    }
    if (found) break;
    if (res.budget_exhausted) break;
    // Unsat for every L with this many stages: Algorithm 1 moves on; schedules with more stages
    // at this II were not examined unless --extra-stages asked for them.
    unconditional = false;
  }
  res.seconds = elapsed();
  res.cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  if (res.found) {
    const Schedule& s = res.schedule;
    if (res.optimal) {
      res.proof = "II=" + std::to_string(s.ii) + " is minimal: " + proof;
      int refuted_ilp = 0, refuted_smt = 0;
      for (auto& st : res.steps) {
        if (st.solver == "modulo-ilp" && st.result.rfind("infeasible", 0) == 0) refuted_ilp++;
        if (st.solver == "smt" && st.result.rfind("unsat", 0) == 0) refuted_smt++;
      }
      if (refuted_ilp) res.proof += "; " + std::to_string(refuted_ilp) + " larger II refuted by the modulo ILP";
      if (refuted_smt)
        res.proof += "; " + std::to_string(refuted_smt) + " (II, L) refuted by SMT" +
                     (res.unconditional ? "" : " (Algorithm 1: for each II only lengths with ceil(Len(M)/II) stages" +
                                                   std::string(opt.extra_stages ? " + " + std::to_string(opt.extra_stages) : "") +
                                                   " are tried)");
      res.proof += "; L=" + std::to_string(s.length) + " is the least length for this II";
    } else {
      res.proof = "not proven optimal: " + join(notes);
    }
  } else if (res.infeasible.empty()) {
    if (res.budget_exhausted) {
      res.infeasible = "no schedule found before the budget ran out (" + join(notes) + ")";
    } else {
      res.infeasible = "no schedule with II <= " + std::to_string(max_ii) +
                       (last_core.empty() ? std::string() : "; the last refutation involved: " + join(last_core));
    }
  }
  return res;
}

}  // namespace loom::sched
