// costnorm.h — cost normalization (document section 5.2) as an integer program solved by CBC.
//
// Given distinct positive raw cycle counts C, find positive integers C' with sum(C') <= U that
// minimize F subject to -F <= C[i]*C'[j] - C[j]*C'[i] <= F for all i < j: the new costs keep the
// ratios of the old ones as closely as the budget U allows. Among the minimizers of F the smallest
// sum(C') is taken (a second solve), so exact ratios come out in lowest terms. Zero stays zero.
// Tested by tests/sched/graph_test.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loom::sched {

struct CostNormalization {
  std::map<std::int64_t, int> scaled;  // raw cycles -> normalized cycles
  double F = 0;                        // achieved bound on the ratio error
  bool proven_optimal = true;          // both CBC solves finished
  double seconds = 0;
  int map(std::int64_t raw) const;     // scaled value (0 -> 0); raw must have been normalized
};

// `budget` is U. Throws UserError if U is smaller than the number of distinct positive costs.
CostNormalization normalize_costs(const std::vector<std::int64_t>& raw, int budget, double max_seconds);

}  // namespace loom::sched
