#include "sched/costnorm.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <vector>

#include "sched/diagnostic.h"
#include "sched/ilp.h"

namespace loom::sched {

int CostNormalization::map(std::int64_t raw) const {
  if (raw == 0) return 0;
  auto it = scaled.find(raw);
  return it == scaled.end() ? 0 : it->second;
}

CostNormalization normalize_costs(const std::vector<std::int64_t>& raw_in, int budget, double max_seconds) {
  CostNormalization out;
  std::set<std::int64_t> distinct;
  for (auto c : raw_in)
    if (c > 0) distinct.insert(c);
  std::vector<std::int64_t> C(distinct.begin(), distinct.end());
  if (C.empty()) return out;
  if (static_cast<int>(C.size()) > budget)
    throw UserError("cost normalization budget U=" + std::to_string(budget) + " is smaller than the " +
                    std::to_string(C.size()) + " distinct costs; raise --norm-budget");
  // Dividing by the gcd does not change ratios and keeps CBC's coefficients small.
  std::int64_t g = 0;
  for (auto c : C) g = std::gcd(g, c);
  std::vector<double> c(C.size());
  for (std::size_t i = 0; i < C.size(); ++i) c[i] = static_cast<double>(C[i] / g);
  if (C.size() == 1) {
    out.scaled[C[0]] = 1;
    return out;
  }
  auto build = [&](Ilp& ilp, std::vector<int>& v, int& F, bool minimize_F) {
    for (std::size_t i = 0; i < C.size(); ++i) v.push_back(ilp.add_var(1, budget, true, minimize_F ? 0 : 1));
    F = ilp.add_var(0, Ilp::kInf, false, minimize_F ? 1 : 0);
    for (std::size_t i = 0; i < C.size(); ++i)
      for (std::size_t j = i + 1; j < C.size(); ++j) {
        ilp.add_row({{v[j], c[i]}, {v[i], -c[j]}, {F, -1}}, -Ilp::kInf, 0);
        ilp.add_row({{v[j], c[i]}, {v[i], -c[j]}, {F, 1}}, 0, Ilp::kInf);
      }
    std::vector<std::pair<int, double>> sum;
    for (int x : v) sum.push_back({x, 1});
    ilp.add_row(sum, 1, budget);
  };
  Ilp first;
  std::vector<int> v1;
  int F1;
  build(first, v1, F1, true);
  Ilp::Result r1 = first.solve(max_seconds);
  out.seconds += r1.seconds;
  if (r1.x.empty()) {
    // Budget exhausted without a solution: fall back to proportional rounding (reported).
    out.proven_optimal = false;
    double total = std::accumulate(c.begin(), c.end(), 0.0);
    for (std::size_t i = 0; i < C.size(); ++i)
      out.scaled[C[i]] = std::max(1, static_cast<int>(std::floor(c[i] / total * budget)));
    return out;
  }
  double Fstar = r1.x[F1];
  out.proven_optimal = r1.status == Ilp::Status::Optimal;
  Ilp second;
  std::vector<int> v2;
  int F2;
  build(second, v2, F2, false);
  second.add_row({{F2, 1}}, -Ilp::kInf, Fstar + 1e-6);
  Ilp::Result r2 = second.solve(max_seconds);
  out.seconds += r2.seconds;
  const Ilp::Result& r = r2.x.empty() ? r1 : r2;
  const std::vector<int>& v = r2.x.empty() ? v1 : v2;
  if (r2.status != Ilp::Status::Optimal) out.proven_optimal = false;
  out.F = Fstar;
  for (std::size_t i = 0; i < C.size(); ++i) out.scaled[C[i]] = static_cast<int>(std::lround(r.x[v[i]]));
  return out;
}

}  // namespace loom::sched
