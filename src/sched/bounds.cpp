#include "sched/bounds.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace loom::sched {

namespace {

constexpr long long kNegInf = std::numeric_limits<long long>::min() / 4;

// Longest paths with weights d - ii*δ (Floyd–Warshall); a positive diagonal entry is a positive cycle.
std::vector<std::vector<long long>> longest(const Problem& p, int ii, std::vector<std::vector<int>>* next) {
  const int n = static_cast<int>(p.ops.size());
  std::vector<std::vector<long long>> D(n, std::vector<long long>(n, kNegInf));
  if (next) next->assign(n, std::vector<int>(n, -1));
  for (const Dep& d : p.deps) {
    long long w = d.delay - static_cast<long long>(ii) * d.distance;
    if (w > D[d.from][d.to]) {
      D[d.from][d.to] = w;
      if (next) (*next)[d.from][d.to] = d.to;
    }
  }
  for (int k = 0; k < n; ++k)
    for (int i = 0; i < n; ++i) {
      if (D[i][k] == kNegInf) continue;
      for (int j = 0; j < n; ++j) {
        if (D[k][j] == kNegInf) continue;
        long long w = std::min<long long>(D[i][k] + D[k][j], std::numeric_limits<long long>::max() / 4);
        if (w > D[i][j]) {
          D[i][j] = w;
          if (next) (*next)[i][j] = (*next)[i][k];
        }
      }
    }
  return D;
}

}  // namespace

bool recurrences_allow(const Problem& p, int ii) {
  auto D = longest(p, ii, nullptr);
  for (std::size_t v = 0; v < D.size(); ++v)
    if (D[v][v] > 0) return false;
  return true;
}

IIBounds ii_bounds(const Problem& p) {
  IIBounds b;
  for (std::size_t f = 0; f < p.units.size(); ++f) {
    long long total = 0;
    for (const Op& o : p.ops)
      for (auto& row : o.rrt) total += row[f];
    if (total == 0 || p.capacity[f] == 0) continue;
    int need = static_cast<int>((total + p.capacity[f] - 1) / p.capacity[f]);
    if (need > b.res_mii || b.res_unit.empty()) {
      if (need >= b.res_mii) {
        b.res_mii = std::max(b.res_mii, need);
        b.res_unit = p.units[f];
      }
    }
  }
  // RecMII: the smallest ii >= 1 without a positive cycle. Sum of delays bounds it from above
  // (zero-distance cycles are rejected when the problem is built).
  long long hi = 1;
  for (const Dep& d : p.deps) hi += d.delay;
  long long lo = 1;
  if (!recurrences_allow(p, 1)) {
    while (lo < hi) {
      long long mid = (lo + hi) / 2;
      if (recurrences_allow(p, static_cast<int>(mid))) hi = mid;
      else lo = mid + 1;
    }
  }
  b.rec_mii = static_cast<int>(lo);
  // Name a critical cycle: one with the least slack at rec_mii.
  if (!p.deps.empty()) {
    std::vector<std::vector<int>> next;
    auto D = longest(p, b.rec_mii, &next);
    long long best = kNegInf;
    for (std::size_t v = 0; v < D.size(); ++v) best = std::max(best, D[v][v]);
    for (std::size_t v = 0; v < D.size(); ++v) {
      if (D[v][v] != best || best == kNegInf || b.rec_mii <= 1) continue;
      std::string s = p.ops[v].name;
      int cur = next[v][v];
      for (int steps = 0; cur >= 0 && steps <= static_cast<int>(D.size()); ++steps) {
        s += " -> " + p.ops[cur].name;
        if (cur == static_cast<int>(v)) break;
        cur = next[cur][v];
      }
      b.rec_cycle = s;
      break;
    }
  }
  return b;
}

}  // namespace loom::sched
