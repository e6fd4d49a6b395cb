// validate.h — an independent checker of schedules. It expands the straight-line program Q
// (ceil(L/I) copies, I cycles apart), builds the modular reservation table explicitly, computes
// liveness by the backward dataflow of the document's Fig. 5 over Q, and checks every constraint
// family: completion, dependence, unit capacity, memory capacity, and (with warps) warp range,
// the variable-latency warp, per-warp register limit and register-file total, cross-warp spill
// delays and blocking-synchronization concurrency (Fig. 6). It shares no code with the solvers.
// Tested by tests/sched/validate_test.cpp; used by the property test on every returned schedule.
#pragma once

#include <string>
#include <vector>

#include "sched/problem.h"
#include "sched/schedule.h"

namespace loom::sched {

struct ValidateOptions {
  bool check_warps = true;     // also check the Fig. 6 families (needs s.warp)
  bool check_memory = true;    // memory capacity (Fig. 5)
};

// Empty when `s` is valid; otherwise one sentence per violation.
std::vector<std::string> validate_schedule(const Problem& p, const Schedule& s, const ValidateOptions& opt = {});

// Peak per-warp register pressure over Q (index = warp) and per-memory peak bytes; for reports.
struct Pressure {
  std::vector<int> regs_per_warp;
  std::vector<long long> memory_peak;
};
Pressure peak_pressure(const Problem& p, const Schedule& s);

}  // namespace loom::sched
