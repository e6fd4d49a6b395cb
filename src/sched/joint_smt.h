// joint_smt.h — the joint software-pipelining + warp-specialization problem (document section 4)
// at a fixed initiation interval I and length L, as an SMT query in linear integer arithmetic (Z3).
//
// Encoding. The document's op[v,i,t] is represented by an integer issue time t(v) in
// [0, L - len(v)] (so Uniqueness, Consistency and Completion of Fig. 4 hold by construction: copy i
// of v issues at t(v) + i*I in Q) with a one-hot slot r(v) = t(v) mod I; opw[v,w] by an integer warp
// w(v) in [0, W). Constraint families, each guarded by an assumption literal so an unsat core names
// the families in conflict:
//   dependence   t(v) - t(u) >= d - I*δ                                   (Fig. 4, modulo form)
//   capacity     per unit and slot, pseudo-boolean sum of reservations <= cap      (Fig. 4)
//   memory       bytes of live values <= capacity at every definition point of Q   (Fig. 5)
//   registers    per warp, registers of live values <= reg_limit; sum of peaks <= reg_file (Fig. 6)
//   varlat       variable-latency ops exactly on warp 0 (when the graph has any)   (Fig. 6)
//   spill        w(u) != w(v) -> t(v) - t(u) >= d + spill(u) - I*δ               (Fig. 6)
//   concurrency  an op waiting on a blocking edge (or on a cross-warp hand-off) issues when no
//                other op of its warp is executing, in any iteration                (Fig. 6):
//                per slot q, (v on o's warp and r(v) = q) -> o not executing at q (one-hot slots)
// Liveness follows Fig. 5 over Q: copy i of v is live on [t(v)+i*I, last use) and, for results
// used by a copy past the last one, up to and including the end of Q. Warps other than 0 are
// interchangeable; a value-precedence order on warp numbers removes that symmetry.
//
// Solving (for speed, without changing the answer):
//  - Lazy liveness (CEGAR). The registers, register-file and memory constraints (one per
//    definition point of Q, quadratic in the number of values, most of Z3's work) are built but
//    not asserted. Z3 solves the rest; each constraint the model violates is asserted (with its
//    family's guard) and Z3 is asked again, on the same incremental solver, until a model
//    satisfies all of them (sat) or the solver says unsat (unsat for a subset is unsat for all).
//  - Hint. With opt.hint (the modulo ILP's optimal schedule, length <= L), a first query fixes the
//    issue times to it (constants: liveness, clashes and spill slacks fold away) so Z3 only
//    searches the warp assignment. Sat answers the full query (those times satisfy every time
//    constraint at this L). If unsat, a partial hint keeps only the times of ops on saturated
//    units (every slot of the modular reservation table full) and lets the others move. Unsat
//    of a hinted query says nothing about other times, so the full query follows on a fresh
//    solver. Hints never change sat/unsat, only which model is returned.
//  - Z3's relevancy propagation is off (4-7x faster on the attention graphs), and its arithmetic
//    is the simplex-based solver (arith.solver=2: 1.1-1.4x faster than the default on them).
// Tested by tests/sched/search_test.cpp and the property test.
#pragma once

#include <string>
#include <vector>

#include "sched/problem.h"
#include "sched/schedule.h"

namespace loom::sched {

struct JointOptions {
  unsigned long long rlimit = 0;  // Z3 resource limit for this query (deterministic); 0 = none
  double max_seconds = 0;         // wall-clock guard; 0 = none
  bool lazy = true;               // liveness families by CEGAR (false: all constraints up front)
  const Schedule* hint = nullptr; // a modulo schedule at this II of length <= L to try first
  unsigned seed = 0;              // Z3's random seed (answers do not depend on it, models may)
  int max_warps = 0;              // use at most this many warp groups (0: the machine's); the
                                  // search's secondary objective (search.h)
};

struct JointResult {
  enum class Status { Sat, Unsat, Unknown } status = Status::Unknown;
  Schedule schedule;                // when Sat
  std::vector<std::string> core;    // when Unsat: constraint families in an unsat core
  std::string reason;               // when Unknown: Z3's reason (resource limit, timeout)
  double seconds = 0;
  unsigned long long rlimit_used = 0;
  int checks = 0;                   // solver calls (CEGAR rounds, hint phase included)
  int lazy_added = 0, lazy_total = 0;  // liveness constraints added by CEGAR / that exist
  bool hint_tried = false, hint_used = false;  // the hint phase ran / found the answer
  int hints_tried = 0;              // 1: all times fixed; 2: also the partial hint (saturated units)
  double hint_seconds = 0;          // time in the hint phase
};

JointResult solve_joint(const Problem& p, int ii, int length, const JointOptions& opt);

}  // namespace loom::sched
