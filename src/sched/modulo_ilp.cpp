#include "sched/modulo_ilp.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <tuple>

namespace loom::sched {

namespace {

constexpr long long kNeg = std::numeric_limits<long long>::min() / 4;

// Longest paths with weights d - I*δ, including the empty path (D[v][v] >= 0). A positive
// D[v][v] afterwards is a positive dependence cycle: no schedule at this I.
std::vector<std::vector<long long>> longest_paths(const Problem& p, int ii) {
  const int n = static_cast<int>(p.ops.size());
  std::vector<std::vector<long long>> D(n, std::vector<long long>(n, kNeg));
  for (int v = 0; v < n; ++v) D[v][v] = 0;
  for (const Dep& d : p.deps)
    D[d.from][d.to] = std::max(D[d.from][d.to], static_cast<long long>(d.delay) - static_cast<long long>(ii) * d.distance);
  for (int k = 0; k < n; ++k)
    for (int i = 0; i < n; ++i) {
      if (D[i][k] == kNeg) continue;
      for (int j = 0; j < n; ++j)
        if (D[k][j] != kNeg) D[i][j] = std::max(D[i][j], std::min(D[i][k] + D[k][j], std::numeric_limits<long long>::max() / 8));
    }
  return D;
}

bool unit_can_overflow(const Problem& p, std::size_t f) {
  long long total = 0;
  for (const Op& o : p.ops)
    for (auto& row : o.rrt) total += row[f];
  return total > p.capacity[f];
}

// Teams (problem.h): the ops of one run on one warp group, so the joint encoding's concurrency rule
// (joint_smt.cpp) holds between them whatever the groups: an op that waits on a blocking dependence
// does not issue while another op of its team executes. Each pair (v, o): v such a waiter, o another
// op of v's team that executes (len > 0). Implied by every warp-specialized schedule, so the ILPs
// below stay relaxations of the joint problem (their bounds stay proofs) while their schedules
// become ones the teams can take.
struct TeamPair {
  int v, o;
};

std::vector<TeamPair> team_pairs(const Problem& p) {
  const int n = static_cast<int>(p.ops.size());
  std::vector<char> waits(static_cast<size_t>(n), 0);
  for (const Dep& d : p.deps)
    if (d.blocking) waits[static_cast<size_t>(d.to)] = 1;
  std::vector<TeamPair> out;
  for (int v = 0; v < n; ++v) {
    if (!waits[static_cast<size_t>(v)] || p.ops[v].team < 0) continue;
    for (int o = 0; o < n; ++o)
      if (o != v && p.ops[o].team == p.ops[v].team && p.ops[o].len > 0) out.push_back({v, o});
  }
  return out;
}

// The list schedulers' view of the pairs: per team, how many placed ops execute at each slot and how
// many placed waiters issue there.
class TeamTable {
 public:
  TeamTable(const Problem& p, int ii) : p_(p), ii_(ii), waits_(p.ops.size(), 0) {
    for (const TeamPair& tp : team_pairs(p)) waits_[static_cast<size_t>(tp.v)] = 1;
    for (const Op& o : p.ops)
      if (o.team >= 0 && !exec_.count(o.team)) {
        exec_[o.team].assign(static_cast<size_t>(ii), 0);
        issue_[o.team].assign(static_cast<size_t>(ii), 0);
      }
  }
  // Whether v (not placed) may issue at c beside the placed ops of its team.
  bool fits(int v, long long c) const {
    const int t = p_.ops[v].team;
    if (t < 0) return true;
    const std::vector<int>& ex = exec_.at(t);
    const std::vector<int>& is = issue_.at(t);
    if (waits_[static_cast<size_t>(v)] && ex[static_cast<size_t>(c % ii_)] > 0) return false;
    for (int k = 0; k < std::min(p_.ops[v].len, ii_); ++k)
      if (is[static_cast<size_t>((c + k) % ii_)] > 0) return false;
    return true;
  }
  // Whether placed op o at c conflicts with v at cv (the pairs in either direction).
  bool clash(int v, long long cv, int o, long long co) const {
    if (v == o || p_.ops[v].team < 0 || p_.ops[v].team != p_.ops[o].team) return false;
    auto covers = [&](int x, long long cx, long long slot) {
      const int len = p_.ops[x].len;
      return len >= ii_ || ((slot - cx) % ii_ + ii_) % ii_ < len;
    };
    return (waits_[static_cast<size_t>(v)] && covers(o, co, cv)) || (waits_[static_cast<size_t>(o)] && covers(v, cv, co));
  }
  void apply(int v, long long c, int sign) {
    const int t = p_.ops[v].team;
    if (t < 0) return;
    if (waits_[static_cast<size_t>(v)]) issue_[t][static_cast<size_t>(c % ii_)] += sign;
    for (int k = 0; k < std::min(p_.ops[v].len, ii_); ++k) exec_[t][static_cast<size_t>((c + k) % ii_)] += sign;
  }

 private:
  const Problem& p_;
  int ii_;
  std::vector<char> waits_;
  std::map<int, std::vector<int>> exec_, issue_;
};

}  // namespace

long long unit_usage_bound(const Problem& p, const std::vector<long long>& est, const std::vector<long long>& tail) {
  const int n = static_cast<int>(p.ops.size());
  long long best = 0;
  for (std::size_t f = 0; f < p.units.size(); ++f) {
    if (p.capacity[f] <= 0) continue;
    // Per user of f: its first occupancy est(v) + a(v), its work u(v) on f, and b(v) = what must
    // follow the end of its last occupancy: L >= t(v) + last(v) + 1 + b(v), b(v) = tail(v) - last(v) - 1.
    struct User {
      long long head, work, post;
    };
    std::vector<User> users;
    for (int v = 0; v < n; ++v) {
      const Op& o = p.ops[v];
      long long work = 0;
      int first = -1, last = -1;
      for (int k = 0; k < o.len; ++k)
        if (o.rrt[k][f] > 0) {
          work += o.rrt[k][f];
          if (first < 0) first = k;
          last = k;
        }
      if (work == 0) continue;
      users.push_back({est[v] + first, work, tail[v] - last - 1});
    }
    // Every subset {head >= h, post >= q}: all of its occupancy lies in [h, L - q), and one iteration's
    // reservations on f never overlap beyond the capacity, so L >= h + ceil(work / capacity) + q.
    for (const User& a : users)
      for (const User& b : users) {
        long long work = 0;
        for (const User& x : users)
          if (x.head >= a.head && x.post >= b.post) work += x.work;
        if (work == 0) continue;
        best = std::max(best, a.head + (work + p.capacity[f] - 1) / p.capacity[f] + b.post);
      }
  }
  return best;
}

namespace {

// A quick list schedule (ops by earliest start; each at the first cycle from its earliest start
// that satisfies the dependences on ops already placed and has room in the modular reservation
// table). Only an incumbent: it may fail, and it proves nothing about minimality.
bool list_schedule(const Problem& p, int ii, const std::vector<long long>& est, const std::vector<int>& order,
                   Schedule& out) {
  const int n = static_cast<int>(p.ops.size());
  std::vector<std::vector<int>> mrt(p.units.size(), std::vector<int>(ii, 0));
  TeamTable teams(p, ii);
  std::vector<long long> t(n, -1);
  for (int v : order) {
    long long lo = est[v], hi = std::numeric_limits<long long>::max() / 4;
    for (const Dep& d : p.deps) {
      long long need = d.delay - static_cast<long long>(ii) * d.distance;
      if (d.to == v && d.from != v && t[d.from] >= 0) lo = std::max(lo, t[d.from] + need);
      if (d.from == v && d.to != v && t[d.to] >= 0) hi = std::min(hi, t[d.to] - need);
    }
    bool placed = false;
    for (long long c = lo; c < lo + ii && c <= hi && !placed; ++c) {
      bool fits = teams.fits(v, c);
      for (std::size_t f = 0; f < p.units.size() && fits; ++f)
        for (int k = 0; k < p.ops[v].len && fits; ++k)
          if (p.ops[v].rrt[k][f] && mrt[f][(c + k) % ii] + p.ops[v].rrt[k][f] > p.capacity[f]) fits = false;
      if (!fits) continue;
      // Reservations of one op may overlap themselves modulo I (len > I).
      std::vector<std::vector<int>> add(p.units.size(), std::vector<int>(ii, 0));
      for (std::size_t f = 0; f < p.units.size(); ++f)
        for (int k = 0; k < p.ops[v].len; ++k) add[f][(c + k) % ii] += p.ops[v].rrt[k][f];
      for (std::size_t f = 0; f < p.units.size() && fits; ++f)
        for (int r = 0; r < ii && fits; ++r)
          if (add[f][r] && mrt[f][r] + add[f][r] > p.capacity[f]) fits = false;
      if (!fits) continue;
      for (std::size_t f = 0; f < p.units.size(); ++f)
        for (int r = 0; r < ii; ++r) mrt[f][r] += add[f][r];
      teams.apply(v, c, +1);
      t[v] = c;
      placed = true;
    }
    if (!placed) return false;
  }
  for (const Dep& d : p.deps)
    if (t[d.to] - t[d.from] < d.delay - static_cast<long long>(ii) * d.distance) return false;
  out.ii = ii;
  out.time.assign(t.begin(), t.end());
  out.length = 0;
  for (int v = 0; v < n; ++v) out.length = std::max<long long>(out.length, t[v] + p.ops[v].span());
  return true;
}

// Iterative modulo scheduling (Rau, 1994): ops by height (longest tail first); each at the first
// cycle in [Estart, Estart + I) with room, or else at Estart (or one past its previous cycle),
// evicting the ops it collides with in the reservation table and the successors whose
// dependences it breaks; at most `budget` placements.
bool iterative_modulo_schedule(const Problem& p, int ii, const std::vector<long long>& est,
                               const std::vector<long long>& tail, Schedule& out) {
  const int n = static_cast<int>(p.ops.size());
  const std::size_t U = p.units.size();
  std::vector<long long> t(n, -1), prev(n, -1);
  auto need = [&](const Dep& d) { return d.delay - static_cast<long long>(ii) * d.distance; };
  auto usage = [&](int v, long long c) {
    std::vector<std::vector<int>> u(U, std::vector<int>(ii, 0));
    for (std::size_t f = 0; f < U; ++f)
      for (int k = 0; k < p.ops[v].len; ++k) u[f][(c + k) % ii] += p.ops[v].rrt[k][f];
    return u;
  };
  std::vector<std::vector<int>> mrt(U, std::vector<int>(ii, 0));
  TeamTable teams(p, ii);
  auto apply = [&](int v, long long c, int sign) {
    auto u = usage(v, c);
    for (std::size_t f = 0; f < U; ++f)
      for (int r = 0; r < ii; ++r) mrt[f][r] += sign * u[f][r];
    teams.apply(v, c, sign);
  };
  auto fits = [&](int v, long long c) {
    if (!teams.fits(v, c)) return false;
    auto u = usage(v, c);
    for (std::size_t f = 0; f < U; ++f)
      for (int r = 0; r < ii; ++r)
        if (u[f][r] && mrt[f][r] + u[f][r] > p.capacity[f]) return false;
    return true;
  };
  int budget = 20 * n + 50;
  for (;;) {
    int v = -1;
    for (int x = 0; x < n; ++x)
      if (t[x] < 0 && (v < 0 || tail[x] > tail[v] || (tail[x] == tail[v] && est[x] < est[v]))) v = x;
    if (v < 0) break;
    if (budget-- <= 0) return false;
    long long lo = est[v];
    for (const Dep& d : p.deps)
      if (d.to == v && d.from != v && t[d.from] >= 0) lo = std::max(lo, t[d.from] + need(d));
    long long c = -1;
    for (long long x = lo; x < lo + ii; ++x)
      if (fits(v, x)) {
        c = x;
        break;
      }
    if (c < 0) c = (prev[v] >= lo) ? prev[v] + 1 : lo;
    // Evict resource and team conflicts until v fits.
    auto u = usage(v, c);
    for (int o = 0; o < n; ++o) {
      if (o == v || t[o] < 0) continue;
      auto uo = usage(o, t[o]);
      bool clash = teams.clash(v, c, o, t[o]);
      for (std::size_t f = 0; f < U && !clash; ++f)
        for (int r = 0; r < ii && !clash; ++r)
          if (u[f][r] && uo[f][r] && mrt[f][r] + u[f][r] > p.capacity[f]) clash = true;
      if (clash) {
        apply(o, t[o], -1);
        t[o] = -1;
      }
    }
    if (!fits(v, c)) return false;  // v collides with itself (len > I)
    apply(v, c, +1);
    t[v] = prev[v] = c;
    // Evict the ops whose dependences with v are now broken.
    for (const Dep& d : p.deps) {
      if (d.from == d.to) continue;
      if (d.from == v && t[d.to] >= 0 && t[d.to] - c < need(d)) {
        apply(d.to, t[d.to], -1);
        t[d.to] = -1;
      }
      if (d.to == v && t[d.from] >= 0 && c - t[d.from] < need(d)) {
        apply(d.from, t[d.from], -1);
        t[d.from] = -1;
      }
    }
  }
  for (const Dep& d : p.deps)
    if (t[d.to] - t[d.from] < need(d)) return false;
  long long tmin = *std::min_element(t.begin(), t.end());
  out.ii = ii;
  out.time.assign(n, 0);
  out.length = 0;
  for (int v = 0; v < n; ++v) {
    out.time[v] = static_cast<int>(t[v] - tmin);
    out.length = std::max(out.length, out.time[v] + p.ops[v].span());
  }
  return true;
}

// Several priority orders (earliest start; then longest tail first; then deterministic shuffles of
// ops with equal earliest start); the shortest list schedule found.
bool greedy_schedule(const Problem& p, int ii, const std::vector<long long>& est, const std::vector<long long>& tail,
                     Schedule& out) {
  const int n = static_cast<int>(p.ops.size());
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  bool found = false;
  auto attempt = [&](const std::vector<int>& o) {
    Schedule s;
    if (list_schedule(p, ii, est, o, s) && (!found || s.length < out.length)) {
      out = s;
      found = true;
    }
  };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return est[a] < est[b]; });
  attempt(order);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return est[a] != est[b] ? est[a] < est[b] : tail[a] > tail[b]; });
  attempt(order);
  std::mt19937 rng(12345);
  for (int k = 0; k < 30; ++k) {
    std::vector<unsigned> key(n);
    for (auto& x : key) x = rng();
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return est[a] != est[b] ? est[a] < est[b] : key[a] < key[b]; });
    attempt(order);
  }
  Schedule ims;
  if (iterative_modulo_schedule(p, ii, est, tail, ims) && (!found || ims.length < out.length)) {
    out = ims;
    found = true;
  }
  return found;
}

// The nonzeros of time_indexed's constraint matrix at horizon H (its rows as built there), to keep
// a model CBC cannot even start on within the budget from being built: CBC's root LP does not
// watch the clock, so a matrix of millions of nonzeros (a graph whose normalized II is in the
// hundreds, with long reservation tables) would run for minutes past --time-limit.
long long time_indexed_nonzeros(const Problem& p, int ii, long long H, const std::vector<long long>& est,
                                const std::vector<long long>& tail) {
  const int n = static_cast<int>(p.ops.size());
  long long nnz = 0;
  std::vector<long long> lst(n);
  for (int v = 0; v < n; ++v) {
    lst[v] = H - tail[v];
    if (lst[v] < est[v]) return 0;  // infeasible before any row
    nnz += 2 * (lst[v] - est[v] + 1);  // one start; the length row
  }
  for (std::size_t f = 0; f < p.units.size(); ++f) {
    if (!unit_can_overflow(p, f)) continue;
    for (int v = 0; v < n; ++v) {
      long long used = 0;
      for (int k = 0; k < p.ops[v].len; ++k) used += p.ops[v].rrt[k][f] != 0;
      nnz += (lst[v] - est[v] + 1) * std::min<long long>(used, ii);
    }
  }
  for (const Dep& d : p.deps) {
    if (d.from == d.to) continue;
    const long long need = d.delay - static_cast<long long>(ii) * d.distance;
    const int u = d.from, v = d.to;
    for (long long tau = est[v]; tau <= lst[v]; ++tau) {
      const long long upto = std::min(lst[u], tau - need);
      if (upto >= lst[u]) continue;
      nnz += (tau - est[v] + 1) + std::max<long long>(0, upto - est[u] + 1);
    }
  }
  for (const TeamPair& tp : team_pairs(p))
    nnz += (lst[tp.v] - est[tp.v] + 1) + (lst[tp.o] - est[tp.o] + 1) * std::min(p.ops[tp.o].len, ii);
  return nnz;
}

// Time-indexed formulation over the horizon [0, H): binary x[v][t] for t in v's window
// [est(v), H - tail(v)]; the modular reservation table per unit and slot; dependences in the
// strong (disaggregated) form "v issued by τ => u issued by τ - need"; minimize L >= t(v) + span(v).
// Its LP relaxation is far tighter than the slot/stage form's. Every modulo schedule of length
// <= H lies inside the windows (t(v) >= est(v) because t >= 0, t(v) + tail(v) <= L), so an
// Infeasible answer proves L > H and an Optimal one is the least L at this I.
ModuloResult time_indexed(const Problem& p, int ii, int H, long long lb, const std::vector<long long>& est,
                          const std::vector<long long>& tail, double max_seconds, int max_nodes) {
  ModuloResult out;
  const int n = static_cast<int>(p.ops.size());
  std::vector<long long> lst(n);
  for (int v = 0; v < n; ++v) {
    lst[v] = H - tail[v];
    if (lst[v] < est[v]) {
      out.status = Ilp::Status::Infeasible;
      return out;
    }
  }
  Ilp ilp;
  ilp.set_proof_mode(true);  // the list schedule is the incumbent; CBC's job is the bound
  int L = ilp.add_var(static_cast<double>(lb), H, true, 1.0);
  std::vector<std::vector<int>> x(n);
  for (int v = 0; v < n; ++v) {
    std::vector<std::pair<int, double>> one, len{{L, 1}};
    for (long long t = est[v]; t <= lst[v]; ++t) {
      x[v].push_back(ilp.add_var(0, 1, true));
      one.push_back({x[v].back(), 1});
      len.push_back({x[v].back(), -static_cast<double>(t + p.ops[v].span())});
    }
    ilp.add_row(one, 1, 1);
    ilp.add_row(len, 0, Ilp::kInf);
  }
  auto X = [&](int v, long long t) { return x[v][t - est[v]]; };
  // The reservation rows, all II slots of a unit in one pass over the ops' windows and reservation
  // tables (a pass per slot would cost II times as much: minutes for a graph whose normalized II is
  // in the hundreds).
  for (std::size_t f = 0; f < p.units.size(); ++f) {
    if (!unit_can_overflow(p, f)) continue;
    std::vector<std::vector<std::pair<int, double>>> rows(static_cast<size_t>(ii));
    std::vector<double> c(static_cast<size_t>(ii));
    for (int v = 0; v < n; ++v)
      for (long long t = est[v]; t <= lst[v]; ++t) {
        std::fill(c.begin(), c.end(), 0.0);
        std::vector<int> touched;
        for (int k = 0; k < p.ops[v].len; ++k) {
          const double use = p.ops[v].rrt[k][f];
          if (use == 0) continue;
          const int r = static_cast<int>((t + k) % ii);
          if (c[static_cast<size_t>(r)] == 0) touched.push_back(r);
          c[static_cast<size_t>(r)] += use;
        }
        for (int r : touched)
          if (c[static_cast<size_t>(r)] != 0) rows[static_cast<size_t>(r)].push_back({X(v, t), c[static_cast<size_t>(r)]});
      }
    for (int r = 0; r < ii; ++r)
      if (!rows[static_cast<size_t>(r)].empty()) ilp.add_row(rows[static_cast<size_t>(r)], -Ilp::kInf, p.capacity[f]);
  }
  for (const Dep& d : p.deps) {
    if (d.from == d.to) continue;  // self edges: need <= 0 (no positive cycle), always satisfied
    long long need = d.delay - static_cast<long long>(ii) * d.distance;
    const int u = d.from, v = d.to;
    for (long long tau = est[v]; tau <= lst[v]; ++tau) {
      // sum_{s <= tau} x[v][s] - sum_{s <= tau - need} x[u][s] <= 0
      long long upto = std::min(lst[u], tau - need);
      if (upto >= lst[u]) continue;  // the right side is 1
      std::vector<std::pair<int, double>> row;
      for (long long s = est[v]; s <= tau; ++s) row.push_back({X(v, s), 1});
      for (long long s = est[u]; s <= upto; ++s) row.push_back({X(u, s), -1});
      ilp.add_row(row, -Ilp::kInf, 0);
    }
  }
  // Teams: per pair (v waits, o executes) and slot q, v issuing at q and o executing at q exclude
  // each other (team_pairs).
  for (const TeamPair& tp : team_pairs(p)) {
    std::vector<std::vector<std::pair<int, double>>> rows(static_cast<size_t>(ii));
    for (long long t = est[tp.v]; t <= lst[tp.v]; ++t) rows[static_cast<size_t>(t % ii)].push_back({X(tp.v, t), 1});
    for (long long t = est[tp.o]; t <= lst[tp.o]; ++t)
      for (int k = 0; k < std::min(p.ops[tp.o].len, ii); ++k) {
        auto& row = rows[static_cast<size_t>((t + k) % ii)];
        if (!row.empty()) row.push_back({X(tp.o, t), 1});
      }
    for (auto& row : rows)
      if (!row.empty()) ilp.add_row(row, -Ilp::kInf, 1);
  }
  Ilp::Result r = ilp.solve(max_seconds, max_nodes);
  out.status = r.status;
  out.seconds = r.seconds;
  out.nodes = r.nodes;
  if (!r.x.empty()) {
    Schedule& s = out.schedule;
    s.ii = ii;
    s.time.assign(n, 0);
    s.length = 0;
    for (int v = 0; v < n; ++v) {
      for (long long t = est[v]; t <= lst[v]; ++t)
        if (std::lround(r.x[X(v, t)]) == 1) s.time[v] = static_cast<int>(t);
      s.length = std::max(s.length, s.time[v] + p.ops[v].span());
    }
  }
  return out;
}

// The slot/stage form without a horizon (an Infeasible answer proves that no modulo schedule
// exists at this I), with the proven lower bound `lb` on L.
ModuloResult slot_stage(const Problem& p, int ii, long long lb, double max_seconds, int max_nodes) {
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
  int L = ilp.add_var(static_cast<double>(lb), Ilp::kInf, true, 1.0);
  auto time_terms = [&](int v, double sign, std::vector<std::pair<int, double>>& t) {
    t.push_back({k[v], sign * ii});
    for (int r = 1; r < ii; ++r) t.push_back({a[v][r], sign * r});
  };
  // Modular reservation table.
  for (std::size_t f = 0; f < p.units.size(); ++f) {
    if (!unit_can_overflow(p, f)) continue;
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
  // Teams (team_pairs): v issuing at slot q excludes o executing at q.
  for (const TeamPair& tp : team_pairs(p))
    for (int q = 0; q < ii; ++q) {
      std::vector<std::pair<int, double>> row{{a[tp.v][q], 1}};
      for (int c = 0; c < std::min(p.ops[tp.o].len, ii); ++c) row.push_back({a[tp.o][((q - c) % ii + ii) % ii], 1});
      ilp.add_row(row, -Ilp::kInf, 1);
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

}  // namespace

namespace {

// Whether the modulo schedule `t` at ii meets every dependence, the modular reservation table and
// the teams' concurrency rule (TeamTable); its length when it does, else -1.
long long feasible_length(const Problem& p, int ii, const std::vector<long long>& t) {
  const int n = static_cast<int>(p.ops.size());
  for (const Dep& d : p.deps)
    if (t[d.to] - t[d.from] < d.delay - static_cast<long long>(ii) * d.distance) return -1;
  std::vector<std::vector<int>> mrt(p.units.size(), std::vector<int>(ii, 0));
  TeamTable teams(p, ii);
  long long len = 0;
  for (int v = 0; v < n; ++v) {
    if (!teams.fits(v, t[v])) return -1;
    teams.apply(v, t[v], +1);
    for (std::size_t f = 0; f < p.units.size(); ++f)
      for (int k = 0; k < p.ops[v].len; ++k)
        if ((mrt[f][(t[v] + k) % ii] += p.ops[v].rrt[k][f]) > p.capacity[f]) return -1;
    len = std::max(len, t[v] + p.ops[v].span());
  }
  return len;
}

// An incumbent for teams that are copies of one another (the sub-tiles of one loop: schedule_graph.h,
// SUBTILES), where the list schedules find none (a recurrence at II = RecMII leaves them no slack).
// The teams are copies when, in op order, the i-th op of every team has the i-th op of the first
// team's reservations, and every dependence of a team's ops maps to one of the first team's (ops of no
// team shared by all, no dependence between two teams). Then the first team with the shared ops is
// scheduled on its own (an ILP half the size), and team k takes that schedule shifted by k d for the
// offset d in [0, I) that meets every constraint with the least length. Only an incumbent: the ILP
// still proves (or improves) its length.
bool team_copies_schedule(const Problem& p, int ii, double max_seconds, int max_nodes, Schedule& out) {
  const int n = static_cast<int>(p.ops.size());
  std::map<int, std::vector<int>> members;  // team -> its ops, in op order
  for (int v = 0; v < n; ++v)
    if (p.ops[v].team >= 0) members[p.ops[v].team].push_back(v);
  if (members.size() < 2) return false;
  const std::vector<int>& first = members.begin()->second;
  std::vector<int> rank(n, -1), index(n, -1);  // a team op's team rank and index in its team
  int k = 0;
  for (auto& [team, ops] : members) {
    if (ops.size() != first.size()) return false;
    for (size_t i = 0; i < ops.size(); ++i) {
      const Op &a = p.ops[ops[i]], &b = p.ops[first[i]];
      if (a.len != b.len || a.rrt != b.rrt) return false;
      rank[ops[i]] = k;
      index[ops[i]] = static_cast<int>(i);
    }
    ++k;
  }
  // Each dependence, its team ops replaced by the first team's: the same set for every team.
  using Key = std::tuple<int, int, int, int, bool>;
  std::vector<std::set<Key>> deps(members.size());
  for (const Dep& d : p.deps) {
    const int rf = rank[d.from], rt = rank[d.to];
    if (rf >= 0 && rt >= 0 && rf != rt) return false;  // between two teams
    const int r = rf >= 0 ? rf : rt;
    if (r < 0) continue;  // between shared ops
    auto first_of = [&](int v) { return rank[v] >= 0 ? first[static_cast<size_t>(index[v])] : v; };
    deps[static_cast<size_t>(r)].insert({first_of(d.from), first_of(d.to), d.delay, d.distance, d.blocking});
  }
  for (const auto& d : deps)
    if (d != deps[0]) return false;
  // The first team and the shared ops on their own.
  Problem sub = p;
  std::vector<int> keep, at(n, -1);
  for (int v = 0; v < n; ++v)
    if (rank[v] <= 0) {
      at[v] = static_cast<int>(keep.size());
      keep.push_back(v);
    }
  sub.ops.clear();
  for (int v : keep) {
    Op o = p.ops[v];
    if (o.team >= 0) o.team = at[o.team];
    sub.ops.push_back(o);
  }
  sub.deps.clear();
  for (const Dep& d : p.deps)
    if (at[d.from] >= 0 && at[d.to] >= 0) sub.deps.push_back({at[d.from], at[d.to], d.delay, d.distance, d.blocking});
  ModuloResult r = optimal_modulo_schedule(sub, ii, max_seconds, max_nodes);
  if (r.status != Ilp::Status::Optimal && r.status != Ilp::Status::Feasible) return false;
  bool found = false;
  std::vector<long long> t(n);
  for (int d = 0; d < ii; ++d) {
    for (int v = 0; v < n; ++v)
      t[v] = rank[v] < 0 ? r.schedule.time[at[v]] : r.schedule.time[at[first[static_cast<size_t>(index[v])]]] + static_cast<long long>(d) * rank[v];
    const long long len = feasible_length(p, ii, t);
    if (len >= 0 && (!found || len < out.length)) {
      out.ii = ii;
      out.time.assign(t.begin(), t.end());
      out.length = static_cast<int>(len);
      found = true;
    }
  }
  return found;
}

}  // namespace

ModuloResult optimal_modulo_schedule(const Problem& p, int ii, double max_seconds, int max_nodes) {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const int n = static_cast<int>(p.ops.size());
  ModuloResult out;
  auto finish = [&](ModuloResult r, const std::string& how) {
    r.seconds = elapsed();
    r.nodes += out.nodes;
    r.solves = out.solves;
    r.method = how;
    r.lower_bound = out.lower_bound;
    return r;
  };
  // Lower bound on L: a schedule starts at t >= 0, so t(v) >= est(v) = max(0, longest path into v),
  // and L >= t(v) + tail(v), tail(v) = the longest path from v to the end of any op.
  auto D = longest_paths(p, ii);
  for (int v = 0; v < n; ++v)
    if (D[v][v] > 0) {
      out.status = Ilp::Status::Infeasible;  // a dependence cycle needs more than I cycles per iteration
      return finish(out, "recurrence");
    }
  std::vector<long long> est(n, 0), tail(n, 0);
  long long lb = 1;
  for (int v = 0; v < n; ++v) {
    tail[v] = p.ops[v].span();
    for (int u = 0; u < n; ++u) {
      if (D[u][v] != kNeg) est[v] = std::max(est[v], D[u][v]);
      if (D[v][u] != kNeg) tail[v] = std::max(tail[v], D[v][u] + p.ops[u].span());
    }
    lb = std::max(lb, est[v] + tail[v]);
  }
  // The unit-usage bound (modulo_ilp.h): on Blackwell forward attention it is the optimum, so the
  // list schedule is proven optimal without CBC.
  lb = std::max(lb, unit_usage_bound(p, est, tail));
  out.lower_bound = static_cast<int>(lb);
  // An incumbent from a list schedule: when it meets the bound it is optimal without a solver.
  Schedule inc;
  bool have_inc = greedy_schedule(p, ii, est, tail, inc);
  std::string inc_how = "list schedule";
  if (!have_inc || inc.length > lb) {  // teams that are copies: the first team's schedule, shifted
    Schedule copies;
    if (team_copies_schedule(p, ii, max_seconds / 2, max_nodes, copies) && (!have_inc || copies.length < inc.length)) {
      inc = copies;
      have_inc = true;
      inc_how = "the first team's schedule shifted for the others";
    }
  }
  if (have_inc) {
    if (inc.length <= lb) {
      ModuloResult r;
      r.status = Ilp::Status::Optimal;
      r.schedule = inc;
      return finish(r, inc_how + " meets the lower bound");
    }
  }
  // Time-indexed ILPs over growing horizons H: each infeasible one proves L > H (cheap: the LP
  // relaxation is usually infeasible at the root), the first feasible one gives the least L (the
  // closer H is to it, the cheaper). H starts at the smallest stage count the bound allows and
  // grows by I/4, ending at the incumbent's length.
  const long long kMaxCells = 40000;  // variables of one time-indexed ILP
  // ... and nonzeros: about four times the largest model of the example graphs (FlashAttention-2's
  // loop from the IR at the CLI's --norm-budget 300: 231k nonzeros, 0.3 s), and no more than a
  // quarter million for each second left: CBC's root LP does not watch the clock (a model of about
  // a million nonzeros took 15 s of a 1 s limit).
  const long long kMaxNonzeros = 1000000, kNonzerosPerSecond = 250000;
  const int kMaxSolves = 12;
  std::vector<long long> horizons;
  const long long step = std::max(1, ii / 4);
  for (long long H = (lb + ii - 1) / ii * ii; static_cast<int>(horizons.size()) < kMaxSolves; H += step) {
    if (have_inc && H >= inc.length) break;
    horizons.push_back(H);
  }
  // The last horizon is one below the incumbent: infeasible there proves the incumbent optimal
  // (usually at the LP root), which is far cheaper than minimizing L over the incumbent's horizon.
  if (have_inc) horizons.push_back(inc.length - 1);
  for (long long H : horizons) {
    if (H < lb) continue;
    if (H * n > kMaxCells) break;
    double left = max_seconds - elapsed();
    if (left <= 0) break;
    const long long cap = std::min(kMaxNonzeros, static_cast<long long>(kNonzerosPerSecond * left));
    if (time_indexed_nonzeros(p, ii, H, est, tail) > cap) break;
    ModuloResult r = time_indexed(p, ii, static_cast<int>(H), lb, est, tail, left, max_nodes);
    out.nodes += r.nodes;
    out.solves++;
    if (r.status == Ilp::Status::Infeasible) {
      lb = std::max(lb, H + 1);  // no schedule of length <= H
      if (have_inc && lb >= inc.length) {
        ModuloResult f;
        f.status = Ilp::Status::Optimal;
        f.schedule = inc;
        out.lower_bound = static_cast<int>(lb);
        return finish(f, inc_how + ", no schedule one cycle shorter (time-indexed ILP)");
      }
      continue;
    }
    if (r.status == Ilp::Status::Optimal) return finish(r, "time-indexed ILP");
    // A limit stopped CBC: report what we have, honestly.
    if (r.status == Ilp::Status::Feasible) return finish(r, "time-indexed ILP (limit)");
    if (have_inc) {
      ModuloResult f;
      f.status = Ilp::Status::Feasible;
      f.schedule = inc;
      return finish(f, inc_how + " (ILP limit)");
    }
    return finish(r, "time-indexed ILP (limit)");
  }
  // Fallback: the slot/stage form has no horizon, so it also proves infeasibility at this I.
  double left = max_seconds - elapsed();
  ModuloResult r = slot_stage(p, ii, lb, std::max(0.05, left), max_nodes);
  out.nodes += r.nodes;
  out.solves++;
  if (r.status == Ilp::Status::Unknown && have_inc) {
    r.status = Ilp::Status::Feasible;
    r.schedule = inc;
  }
  if (r.status == Ilp::Status::Feasible && have_inc && inc.length < r.schedule.length) r.schedule = inc;
  return finish(r, "slot/stage ILP");
}

}  // namespace loom::sched
