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
//                other op of its warp is executing, in any iteration                (Fig. 6)
// Liveness follows Fig. 5 over Q: copy i of v is live on [t(v)+i*I, last use) and, for results
// used by a copy past the last one, up to and including the end of Q. Warps other than 0 are
// interchangeable; a value-precedence order on warp numbers removes that symmetry.
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
};

struct JointResult {
  enum class Status { Sat, Unsat, Unknown } status = Status::Unknown;
  Schedule schedule;                // when Sat
  std::vector<std::string> core;    // when Unsat: constraint families in an unsat core
  std::string reason;               // when Unknown: Z3's reason (resource limit, timeout)
  double seconds = 0;
  unsigned long long rlimit_used = 0;
};

JointResult solve_joint(const Problem& p, int ii, int length, const JointOptions& opt);

}  // namespace loom::sched
