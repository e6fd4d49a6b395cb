// bounds.h — lower bounds on the initiation interval, computed before any solver runs:
// ResMII (the busiest unit's total reservations over its capacity) and RecMII (the largest
// ceil(sum of delays / sum of distances) over dependence cycles). Tested by tests/sched/graph_test.cpp.
#pragma once

#include <string>

#include "sched/problem.h"

namespace loom::sched {

struct IIBounds {
  int res_mii = 1;
  std::string res_unit;      // the unit that sets ResMII ("" if none is used)
  int rec_mii = 1;
  std::string rec_cycle;     // a critical cycle, "A -> B -> A" ("" if there is none)
  int mii() const { return res_mii > rec_mii ? res_mii : rec_mii; }
};

IIBounds ii_bounds(const Problem& p);

// True if dependences alone admit a schedule at `ii` (no cycle with sum(d - ii*δ) > 0).
bool recurrences_allow(const Problem& p, int ii);

}  // namespace loom::sched
