// modulo_ilp.h — optimal modulo scheduling at a fixed initiation interval as an integer program
// (CBC), in the style of Eichenberger/Stoutchinin: each op picks one slot r in [0, I) (binary
// a[v][r]) and a stage k (integer), t(v) = I*k + r; the modular reservation table is bounded per
// unit and slot; dependences t(v) - t(u) >= d - I*δ; the objective is the schedule length
// L >= t(v) + len(v). The formulation has no time horizon, so Infeasible is a proof that no modulo
// schedule exists at this I. Tested by tests/sched/modulo_test.cpp and the property test.
//
// Speed (the formulation above has a weak LP relaxation; proving L minimal took most of the
// search on the attention graphs): optimal_modulo_schedule first computes the dependence bound
// L >= est(v) + tail(v) (longest paths at I) and a list-scheduled incumbent. If the incumbent
// meets the bound, it is optimal without CBC. Otherwise it solves a time-indexed ILP (binary
// x[v][t] inside dependence windows, disaggregated precedence rows, much tighter) over horizons
// H = s*I for the smallest stage counts s the bound allows, then H = the incumbent's length: an
// infeasible horizon proves L > H, a feasible one gives the least L. Only when every horizon is
// infeasible (or too large) does it fall back to the slot/stage form above, with the bound
// raised, which also proves that no modulo schedule exists at I.
// The bound also counts unit usage (unit_usage_bound): the ops of one iteration that use a unit f
// occupy it at distinct cycles (up to its capacity c, also modulo I), so for any subset S of them
// L >= min over S of (est + first cycle on f) + ceil(total work of S on f / c) + min over S of
// (tail after the last cycle on f); the subsets tried are those cut by a threshold on each end.
#pragma once

#include <string>
#include <vector>

#include "sched/ilp.h"
#include "sched/problem.h"
#include "sched/schedule.h"

namespace loom::sched {

struct ModuloResult {
  Ilp::Status status = Ilp::Status::Unknown;
  Schedule schedule;  // valid when status is Optimal or Feasible (warps empty)
  double seconds = 0;
  long nodes = 0;
  int solves = 0;           // CBC calls
  int lower_bound = 0;      // the bound on L used: dependences (est + tail) and unit usage
  std::string method;       // what decided the result
};

ModuloResult optimal_modulo_schedule(const Problem& p, int ii, double max_seconds, int max_nodes = -1);

// The unit-usage lower bound on L at the earliest starts `est` and tails `tail` of the dependence
// bound (longest paths at I; tail(v) >= len(v) is what must follow v's issue).
long long unit_usage_bound(const Problem& p, const std::vector<long long>& est, const std::vector<long long>& tail);


}  // namespace loom::sched
