// search.h — Algorithm 1 of the document: for I = MII, MII+1, ...: an optimal modulo schedule at I
// (modulo_ilp.h; an infeasible ILP proves no schedule exists at I), then the joint SWP+WS SMT
// problem (joint_smt.h) for L = Len(M), Len(M)+1, ... while ceil(L/I) is unchanged. The first
// satisfiable (I, L) is returned; it is optimal when every earlier step was refuted (not merely
// out of budget). Solver budgets: one wall-clock limit for the whole search, and a deterministic
// Z3 resource budget (rlimit); each SMT query gets at most half of what is left, so a query that
// runs out still leaves room to find a (not proven optimal) schedule at a larger I.
// Secondary objective (minimize_groups): once (I, L) is found, the same SMT query is asked with at
// most G - 1 warp groups, G the groups the schedule uses (the schedule's times as the hint), and
// again while it is satisfiable; an unsat answer proves G minimal at this (I, L). It never changes
// I or L, and has a budget of its own (groups_time_limit, within the search's), so a hard
// refutation (FlashAttention-2's loop at II = 160) costs seconds, not the rest of the search. Hopper forward attention: FA3's two consumer groups (plus the load group) instead of three.
// Tested by tests/sched/search_test.cpp and the property test.
#pragma once

#include <string>
#include <vector>

#include "sched/bounds.h"
#include "sched/problem.h"
#include "sched/schedule.h"

namespace loom::sched {

struct SearchOptions {
  double time_limit = 300;           // seconds for the whole search
  unsigned long long rlimit = 0;     // total Z3 resource budget; 0 = kRlimitPerSecond * time_limit
  bool warp_specialize = true;       // false: modulo scheduling only (no warps, no SMT)
  int extra_stages = 0;              // also try L up to (ceil(Len(M)/I) + extra) * I
  int max_ii = 0;                    // 0: a bound at which one iteration fits in one stage
  bool minimize_groups = true;       // secondary objective: fewest warp groups at the (II, L) found
  double groups_time_limit = 5;      // its own budget: seconds, and kRlimitPerSecond * this of rlimit
  unsigned long long groups_rlimit = 0;  // its Z3 resource budget instead, when not 0 (the compiler's
                                         // schedule(optimal) makes it the binding one: deterministic)
  unsigned seed = 0;                 // Z3's random seed for the SMT queries: sat/unsat answers, II, L and the
                                     // fewest groups do not depend on it; the time and which schedule of
                                     // that (II, L) is returned may
  int ilp_max_nodes = -1;            // CBC branch-and-bound nodes per modulo-ILP call (-1: none): a
                                     // deterministic budget; an ILP that reaches it decides nothing at
                                     // its II (the search goes on to the next, not proven optimal)
  static constexpr unsigned long long kRlimitPerSecond = 4000000;
};

struct SearchStep {
  int ii = 0, length = 0;
  std::string solver;  // "bounds", "modulo-ilp", "smt", "check"
  std::string result;  // "infeasible", "optimal L=..", "unsat [families]", "sat", "unknown (...)"
  double seconds = 0;
};

struct SearchResult {
  bool found = false;
  Schedule schedule;
  bool optimal = false;       // II minimal (and L minimal for it) under Algorithm 1's stage rule
  bool unconditional = false; // ... and every smaller II was refuted without the stage rule
  std::string proof;          // why the result is (or is not) optimal, in words
  std::string infeasible;     // when nothing was found: why, as far as the solvers could tell
  IIBounds bounds;
  std::vector<SearchStep> steps;
  int ilp_calls = 0, smt_calls = 0;
  double ilp_seconds = 0, smt_seconds = 0, seconds = 0;
  double cpu_seconds = 0;     // process CPU time of the search (the machine may be shared)
  unsigned long long rlimit_used = 0;
  bool budget_exhausted = false;
  // The secondary objective: warp groups the schedule uses, and whether no assignment at its
  // (II, L) uses fewer (an unsat SMT answer at groups - 1; false when not tried or out of budget).
  int groups = 0;
  bool groups_minimal = false;
};

// Warp groups a schedule uses (distinct A(v)); 0 without a warp assignment.
int groups_used(const Schedule& s);

SearchResult search_schedule(const Problem& p, const SearchOptions& opt);

}  // namespace loom::sched
