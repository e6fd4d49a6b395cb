#include "sched/brute_force.h"

#include <algorithm>
#include <climits>
#include <vector>

namespace loom::sched {

namespace {

long long floor_div(long long a, long long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
long long ceil_div(long long a, long long b) { return -floor_div(-a, b); }

// Least stages k >= 0 with I*k(v)+r(v) - I*k(u)-r(u) >= d - I*δ for every edge; false on a positive cycle.
bool earliest_stages(const Problem& p, int I, const std::vector<int>& r, std::vector<long long>& k) {
  const int n = static_cast<int>(p.ops.size());
  k.assign(n, 0);
  for (int round = 0; round <= n; ++round) {
    bool changed = false;
    for (const Dep& d : p.deps) {
      long long need = ceil_div(static_cast<long long>(d.delay) - static_cast<long long>(I) * d.distance - r[d.to] + r[d.from], I);
      if (k[d.to] < k[d.from] + need) {
        k[d.to] = k[d.from] + need;
        changed = true;
      }
    }
    if (!changed) return true;
  }
  return false;
}

}  // namespace

std::optional<Schedule> brute_force_modulo(const Problem& p, int max_ii) {
  const int n = static_cast<int>(p.ops.size());
  for (int I = 1; I <= max_ii; ++I) {
    std::vector<int> r(n, 0);
    std::optional<Schedule> best;
    while (true) {
      // Modular reservation table of this slot assignment.
      bool fits = true;
      std::vector<std::vector<int>> use(p.units.size(), std::vector<int>(I, 0));
      for (int v = 0; v < n && fits; ++v)
        for (int c = 0; c < p.ops[v].len && fits; ++c)
          for (std::size_t f = 0; f < p.units.size(); ++f) {
            int& u = use[f][(r[v] + c) % I];
            u += p.ops[v].rrt[c][f];
            if (u > p.capacity[f]) fits = false;
          }
      std::vector<long long> k;
      if (fits && earliest_stages(p, I, r, k)) {
        Schedule s;
        s.ii = I;
        s.time.resize(n);
        long long kmin = *std::min_element(k.begin(), k.end());
        int len = 0;
        for (int v = 0; v < n; ++v) {
          s.time[v] = static_cast<int>((k[v] - kmin) * I + r[v]);
          len = std::max(len, s.time[v] + p.ops[v].span());
        }
        s.length = len;
        if (!best || s.length < best->length) best = s;
      }
      int pos = 0;
      while (pos < n && ++r[pos] == I) r[pos++] = 0;
      if (pos == n) break;
    }
    if (best) return best;
  }
  return std::nullopt;
}

}  // namespace loom::sched
