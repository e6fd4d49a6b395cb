// modulo_ilp.h — optimal modulo scheduling at a fixed initiation interval as an integer program
// (CBC), in the style of Eichenberger/Stoutchinin: each op picks one slot r in [0, I) (binary
// a[v][r]) and a stage k (integer), t(v) = I*k + r; the modular reservation table is bounded per
// unit and slot; dependences t(v) - t(u) >= d - I*δ; the objective is the schedule length
// L >= t(v) + len(v). The formulation has no time horizon, so Infeasible is a proof that no modulo
// schedule exists at this I. Tested by tests/sched/modulo_test.cpp and the property test.
#pragma once

#include "sched/ilp.h"
#include "sched/problem.h"
#include "sched/schedule.h"

namespace loom::sched {

struct ModuloResult {
  Ilp::Status status = Ilp::Status::Unknown;
  Schedule schedule;  // valid when status is Optimal or Feasible (warps empty)
  double seconds = 0;
  long nodes = 0;
};

ModuloResult optimal_modulo_schedule(const Problem& p, int ii, double max_seconds, int max_nodes = -1);

}  // namespace loom::sched
