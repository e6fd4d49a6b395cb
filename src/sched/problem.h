// problem.h — the normalized scheduling problem: a graph resolved against a machine model, with
// every cycle count replaced by its normalized value (costnorm.h). All solvers (modulo_ilp.h,
// joint_smt.h, brute_force.h) and the validator (validate.h) work on a Problem.
//
// Semantics, in normalized cycles:
//  - op v occupies rrt[c][f] instances of unit f at cycle c of its execution, c in [0, len);
//    len may be 0 (streaming operations, document section 5.3, occupy nothing and take no time);
//  - edge (u, v, delay d, distance δ): v of iteration i issues >= d cycles after u of iteration i-δ;
//  - a value (the result of v) needs regs registers per thread of the warp group that computes it
//    and mem[m] bytes of memory m while it is live (from its issue to its last use);
//  - handing a register value to another warp group costs spill cycles and blocking synchronization;
//  - ops of one team run on one warp group (a sub-tile whose values stay in its warp group's registers).
// Tested by tests/sched/graph_test.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sched/costnorm.h"
#include "sched/graph.h"
#include "sched/machine.h"

namespace loom::sched {

struct Op {
  std::string name;
  std::vector<std::vector<int>> rrt;  // [cycle][unit] -> instances
  int len = 0;                        // rrt.size()
  int regs = 0;
  std::vector<std::int64_t> mem;      // [memory] -> bytes
  bool variable_latency = false;
  bool streaming = false;             // variable latency and no incoming dependence: zero cost
  int spill = 0;                      // cross-warp hand-off cost (0: none needed, e.g. smem values)
  int team = -1;                      // the first op of its team (which all run on that op's warp group), or -1
  int span() const { return len > 0 ? len : 1; }  // cycles counted toward the schedule length
};

struct Dep {
  int from = 0, to = 0;
  int delay = 0;
  int distance = 0;
  bool blocking = false;
};

struct Problem {
  std::string name;
  std::string machine;
  std::vector<std::string> units;
  std::vector<int> capacity;
  std::vector<std::string> memories;
  std::vector<std::int64_t> memory_capacity;
  std::vector<Op> ops;
  std::vector<Dep> deps;
  int warps = 1;
  int reg_limit = 255;
  int reg_file = 0;  // 0 = unlimited
  bool has_variable_latency() const;
  CostNormalization norm;  // how raw cycles were mapped
};

struct BuildOptions {
  int norm_budget = 300;  // U of section 5.2
  bool normalize = true;  // false: raw cycles are used as they are
  double max_seconds = 10;
};

// Resolves `g` against `m` (units, op costs, blocking defaults, cross-warp costs), normalizes
// costs, and checks the result (unknown units or memories, capacity 0 units in use, zero-distance
// dependence cycles). Throws UserError.
Problem build_problem(const Graph& g, const Machine& m, const BuildOptions& opt);

}  // namespace loom::sched
