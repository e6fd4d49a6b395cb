// brute_force.h — a reference modulo scheduler for small graphs, sharing no code with the ILP:
// for I = 1, 2, ... it enumerates every assignment of ops to slots in [0, I), keeps those whose
// modular reservation table fits, and for each computes the earliest stages that satisfy all
// dependences (Bellman-Ford on difference constraints; a positive cycle means none exist). The
// first I with a feasible assignment is the minimal II, and the least resulting length is the
// minimal L at that II. Exponential: meant for graphs of a handful of ops (the property test).
// Tested by tests/sched/property_test.cpp.
#pragma once

#include <optional>

#include "sched/problem.h"
#include "sched/schedule.h"

namespace loom::sched {

// Minimal-II, then minimal-length modulo schedule (no warps), or nullopt if none with II <= max_ii.
std::optional<Schedule> brute_force_modulo(const Problem& p, int max_ii);

}  // namespace loom::sched
