#include "sched/modulo_ilp.h"

#include <cmath>

namespace loom::sched {

ModuloResult optimal_modulo_schedule(const Problem& p, int ii, double max_seconds, int max_nodes) {
  ModuloResult out;
  const int n = static_cast<int>(p.ops.size());
  // Stages never need to exceed a longest path of per-edge stage gaps: each edge forces at most
  // ceil(d/I) + 1 stages between its ends, so this bound loses no solution.
  long long kmax = 1;
  for (const Dep& d : p.deps) kmax += (d.delay + ii - 1) / ii + 1;
  Ilp ilp;
  std::vector<std::vector<int>> a(n, std::vector<int>(ii));
  std::vector<int> k(n);
  for (int v = 0; v < n; ++v) {
    std::vector<std::pair<int, double>> one;
    for (int r = 0; r < ii; ++r) {
      a[v][r] = ilp.add_var(0, 1, true);
      one.push_back({a[v][r], 1});
    }
    ilp.add_row(one, 1, 1);
    k[v] = ilp.add_var(0, static_cast<double>(kmax), true);
  }
  int L = ilp.add_var(0, Ilp::kInf, true, 1.0);
  auto time_terms = [&](int v, double sign, std::vector<std::pair<int, double>>& t) {
    t.push_back({k[v], sign * ii});
    for (int r = 1; r < ii; ++r) t.push_back({a[v][r], sign * r});
  };
  // Modular reservation table.
  for (std::size_t f = 0; f < p.units.size(); ++f) {
    long long total = 0;
    for (const Op& o : p.ops)
      for (auto& row : o.rrt) total += row[f];
    if (total <= p.capacity[f]) continue;  // can never overflow
    for (int r = 0; r < ii; ++r) {
      std::vector<std::pair<int, double>> row;
      for (int v = 0; v < n; ++v) {
        std::vector<double> coef(ii, 0);
        for (int c = 0; c < p.ops[v].len; ++c) coef[((r - c) % ii + ii) % ii] += p.ops[v].rrt[c][f];
        for (int s = 0; s < ii; ++s)
          if (coef[s] != 0) row.push_back({a[v][s], coef[s]});
      }
      if (!row.empty()) ilp.add_row(row, -Ilp::kInf, p.capacity[f]);
    }
  }
  for (const Dep& d : p.deps) {
    std::vector<std::pair<int, double>> t;
    time_terms(d.to, 1, t);
    time_terms(d.from, -1, t);
    ilp.add_row(t, static_cast<double>(d.delay) - static_cast<double>(ii) * d.distance, Ilp::kInf);
  }
  for (int v = 0; v < n; ++v) {
    std::vector<std::pair<int, double>> t{{L, 1}};
    time_terms(v, -1, t);
    ilp.add_row(t, p.ops[v].span(), Ilp::kInf);
  }
  Ilp::Result r = ilp.solve(max_seconds, max_nodes);
  out.status = r.status;
  out.seconds = r.seconds;
  out.nodes = r.nodes;
  if (!r.x.empty()) {
    Schedule& s = out.schedule;
    s.ii = ii;
    s.time.resize(n);
    int len = 0;
    int tmin = 1 << 30;
    for (int v = 0; v < n; ++v) {
      int t = static_cast<int>(std::lround(r.x[k[v]])) * ii;
      for (int q = 0; q < ii; ++q)
        if (std::lround(r.x[a[v][q]]) == 1) t += q;
      s.time[v] = t;
      tmin = std::min(tmin, t);
    }
    // Shift whole stages so the earliest op is in stage 0 (the objective already does this
    // unless a limit stopped CBC early).
    int shift = (tmin / ii) * ii;
    for (int v = 0; v < n; ++v) {
      s.time[v] -= shift;
      len = std::max(len, s.time[v] + p.ops[v].span());
    }
    s.length = len;
  }
  return out;
}

}  // namespace loom::sched
