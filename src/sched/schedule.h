// schedule.h — a modulo schedule with a warp assignment: initiation interval I, length L,
// per-op issue cycle M(v) in [0, L) and warp group A(v). Iteration i of op v issues at M(v) + i*I.
// The straight-line program Q of the document (section 4) overlaps stages() = ceil(L/I) copies and
// has horizon() = (stages()-1)*I + L cycles: prologue, one steady state of I cycles, epilogue.
#pragma once

#include <vector>

namespace loom::sched {

struct Schedule {
  int ii = 0;
  int length = 0;
  std::vector<int> time;  // M(v), normalized cycles
  std::vector<int> warp;  // A(v); empty when no warp assignment was computed
  int stages() const { return ii > 0 ? (length + ii - 1) / ii : 0; }
  int horizon() const { return (stages() - 1) * ii + length; }
  bool has_warps() const { return !warp.empty(); }
};

}  // namespace loom::sched
