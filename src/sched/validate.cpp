#include "sched/validate.h"

#include <algorithm>
#include <sstream>

namespace loom::sched {

namespace {

struct Expanded {
  // Copies first .. first + copies - 1; copies < 0 are iterations before Q whose carried values
  // are still live in it (index k = i - first).
  int n = 0, copies = 0, first = 0, T = 0;
  // op[v][i] = issue time of copy i of v in Q.
  std::vector<std::vector<int>> at;
  // live[v][i][t] for t in [0, T]: the result of copy i of v is live at t (Fig. 5 semantics).
  std::vector<std::vector<std::vector<char>>> live;
};

// Liveness by backward dataflow over Q, rule by rule as in Fig. 5: Init at T, then from t to t-1:
// live & issued at t -> dead before; live & not issued -> live before; dead & a use issued at t ->
// live before; dead & no use at t -> dead before.
Expanded expand(const Problem& p, const Schedule& s) {
  Expanded e;
  e.n = static_cast<int>(p.ops.size());
  const int stages = s.stages();
  int reach = 0;
  for (const Dep& d : p.deps) reach = std::max(reach, d.distance);
  e.first = reach > 0 ? -(stages - 1) - reach : 0;
  e.copies = stages - e.first;
  e.T = s.horizon();
  e.at.assign(e.n, std::vector<int>(e.copies));
  for (int v = 0; v < e.n; ++v)
    for (int k = 0; k < e.copies; ++k) e.at[v][k] = s.time[v] + (k + e.first) * s.ii;
  e.live.assign(e.n, std::vector<std::vector<char>>(e.copies, std::vector<char>(e.T + 1, 0)));
  for (int v = 0; v < e.n; ++v) {
    for (int k = 0; k < e.copies; ++k) {
      // Uses of copy i of v: the times of the consumer copies i + δ (before Q for i + δ < 0), or
      // "beyond Q" for consumers past the last copy.
      const int i = k + e.first;
      std::vector<int> use_times;
      bool beyond = false;
      for (const Dep& d : p.deps) {
        if (d.from != v) continue;
        int j = i + d.distance;
        if (j < stages) use_times.push_back(s.time[d.to] + j * s.ii);
        else beyond = true;
      }
      if (i < 0 && !beyond && use_times.empty()) continue;  // an earlier iteration's unused value
      auto& L = e.live[v][k];
      L[e.T] = beyond ? 1 : 0;  // Init
      for (int t = e.T; t >= 1; --t) {
        bool issued = e.at[v][k] == t;
        bool used = std::find(use_times.begin(), use_times.end(), t) != use_times.end();
        if (L[t]) L[t - 1] = issued ? 0 : 1;
        else L[t - 1] = used ? 1 : 0;
      }
      // A value is never live before it is computed (the rules above already ensure this when
      // every use follows the definition; a use at the definition cycle keeps it dead).
      for (int t = 0; t < e.at[v][k] && t <= e.T; ++t) L[t] = 0;
    }
  }
  return e;
}


}  // namespace

Pressure peak_pressure(const Problem& p, const Schedule& s) {
  Pressure out;
  Expanded e = expand(p, s);
  int W = s.has_warps() ? *std::max_element(s.warp.begin(), s.warp.end()) + 1 : 1;
  out.regs_per_warp.assign(std::max(W, p.warps), 0);
  out.memory_peak.assign(p.memories.size(), 0);
  for (int t = 0; t <= e.T; ++t) {
    std::vector<int> regs(out.regs_per_warp.size(), 0);
    std::vector<long long> mem(p.memories.size(), 0);
    for (int v = 0; v < e.n; ++v)
      for (int i = 0; i < e.copies; ++i)
        if (e.live[v][i][t]) {
          regs[s.has_warps() ? s.warp[v] : 0] += p.ops[v].regs;
          for (std::size_t m = 0; m < mem.size(); ++m) mem[m] += p.ops[v].mem[m];
        }
    for (std::size_t w = 0; w < regs.size(); ++w) out.regs_per_warp[w] = std::max(out.regs_per_warp[w], regs[w]);
    for (std::size_t m = 0; m < mem.size(); ++m) out.memory_peak[m] = std::max(out.memory_peak[m], mem[m]);
  }
  return out;
}

std::vector<std::string> validate_schedule(const Problem& p, const Schedule& s, const ValidateOptions& opt) {
  std::vector<std::string> bad;
  auto fail = [&](const std::string& m) {
    if (bad.size() < 50) bad.push_back(m);
  };
  const int n = static_cast<int>(p.ops.size());
  if (s.ii < 1) return {"initiation interval must be >= 1"};
  if (static_cast<int>(s.time.size()) != n) return {"schedule has the wrong number of ops"};
  bool warps = opt.check_warps && s.has_warps();
  if (opt.check_warps && !s.has_warps()) fail("schedule has no warp assignment");
  if (s.has_warps() && static_cast<int>(s.warp.size()) != n) return {"warp assignment has the wrong size"};
  // Completion and length.
  int len = 0;
  for (int v = 0; v < n; ++v) {
    if (s.time[v] < 0) fail(p.ops[v].name + " issues at negative cycle " + std::to_string(s.time[v]));
    len = std::max(len, s.time[v] + p.ops[v].span());
  }
  if (len > s.length) fail("an op completes at " + std::to_string(len) + " after the length " + std::to_string(s.length));
  if (!bad.empty()) return bad;
  // Dependences (+ cross-warp spill delay), checked on instances of Q and, for edges whose
  // distance reaches past Q, on the modulo form t(v) + δ*I >= t(u) + d.
  for (const Dep& d : p.deps) {
    int need = d.delay;
    if (warps && s.warp[d.from] != s.warp[d.to]) need += p.ops[d.from].spill;
    long long slack = static_cast<long long>(s.time[d.to]) + static_cast<long long>(d.distance) * s.ii - s.time[d.from] - need;
    if (slack < 0)
      fail("dependence " + p.ops[d.from].name + " -> " + p.ops[d.to].name + " (delay " + std::to_string(d.delay) +
           (need != d.delay ? " + cross-warp " + std::to_string(need - d.delay) : std::string()) + ", distance " +
           std::to_string(d.distance) + ") violated by " + std::to_string(-slack) + " cycles");
  }
  // Capacity: build the modular reservation table.
  std::vector<std::vector<int>> mrt(p.units.size(), std::vector<int>(s.ii, 0));
  for (int v = 0; v < n; ++v)
    for (int c = 0; c < p.ops[v].len; ++c)
      for (std::size_t f = 0; f < p.units.size(); ++f) mrt[f][(s.time[v] + c) % s.ii] += p.ops[v].rrt[c][f];
  for (std::size_t f = 0; f < p.units.size(); ++f)
    for (int r = 0; r < s.ii; ++r)
      if (mrt[f][r] > p.capacity[f])
        fail("unit " + p.units[f] + " over capacity in slot " + std::to_string(r) + ": " + std::to_string(mrt[f][r]) +
             " > " + std::to_string(p.capacity[f]));
  Expanded e = expand(p, s);
  // Memory capacity and registers per warp, at every cycle of Q.
  int W = p.warps;
  if (warps) {
    bool range_ok = true;
    for (int v = 0; v < n; ++v)
      if (s.warp[v] < 0 || s.warp[v] >= W) {
        fail(p.ops[v].name + " assigned to warp group " + std::to_string(s.warp[v]) + " of " + std::to_string(W));
        range_ok = false;
      }
    if (!range_ok) return bad;
    for (int v = 0; v < n; ++v) {
      const int first = p.ops[v].team;  // the team's first op
      if (first >= 0 && s.warp[v] != s.warp[first])
        fail(p.ops[v].name + " is on warp group " + std::to_string(s.warp[v]) + " but its team's " + p.ops[first].name + " on " +
             std::to_string(s.warp[first]) + " (a team runs on one warp group)");
    }
    if (p.has_variable_latency())
      for (int v = 0; v < n; ++v)
        if (p.ops[v].variable_latency != (s.warp[v] == 0))
          fail(p.ops[v].name + (p.ops[v].variable_latency ? " has variable latency but is not on warp group 0"
                                                         : " has fixed latency but shares the variable-latency warp group 0"));
  }
  std::vector<int> peak(W, 0);
  for (int t = 0; t <= e.T; ++t) {
    std::vector<long long> mem(p.memories.size(), 0);
    std::vector<int> regs(W, 0);
    for (int v = 0; v < n; ++v)
      for (int i = 0; i < e.copies; ++i) {
        if (!e.live[v][i][t]) continue;
        for (std::size_t m = 0; m < mem.size(); ++m) mem[m] += p.ops[v].mem[m];
        if (warps) regs[s.warp[v]] += p.ops[v].regs;
      }
    if (opt.check_memory)
      for (std::size_t m = 0; m < mem.size(); ++m)
        if (mem[m] > p.memory_capacity[m])
          fail(p.memories[m] + " over capacity at cycle " + std::to_string(t) + " of Q: " + std::to_string(mem[m]) + " > " +
               std::to_string(p.memory_capacity[m]) + " bytes");
    if (warps)
      for (int w = 0; w < W; ++w) {
        peak[w] = std::max(peak[w], regs[w]);
        if (regs[w] > p.reg_limit)
          fail("warp group " + std::to_string(w) + " needs " + std::to_string(regs[w]) + " registers/thread at cycle " +
               std::to_string(t) + " of Q, limit " + std::to_string(p.reg_limit));
      }
  }
  if (warps && p.reg_file > 0) {
    int total = 0;
    for (int w = 0; w < W; ++w) total += peak[w];
    if (total > p.reg_file)
      fail("warp groups need " + std::to_string(total) + " registers/thread in total, register file allows " +
           std::to_string(p.reg_file));
  }
  // Concurrency (Fig. 6): when an op that waits on a blocking edge issues on warp w, no other op
  // on w may be executing.
  if (warps) {
    for (int v = 0; v < n; ++v) {
      bool blocks = false;
      for (const Dep& d : p.deps)
        if (d.to == v && (d.blocking || (s.warp[d.from] != s.warp[v] && p.ops[d.from].spill > 0))) blocks = true;
      if (!blocks) continue;
      // In the running loop every iteration pair meets: o executes at v's issue iff
      // (t(v) - t(o)) mod I < len(o).
      for (int o = 0; o < n; ++o) {
        if (o == v || s.warp[o] != s.warp[v] || p.ops[o].len == 0) continue;
        int phase = ((s.time[v] - s.time[o]) % s.ii + s.ii) % s.ii;
        if (phase < p.ops[o].len)
          fail(p.ops[v].name + " waits (blocking) at cycle " + std::to_string(s.time[v]) + " while " + p.ops[o].name +
               " (issued at " + std::to_string(s.time[o]) + ", " + std::to_string(p.ops[o].len) +
               " cycles, modulo " + std::to_string(s.ii) + ") executes on the same warp group " + std::to_string(s.warp[v]));
      }
    }
  }
  return bad;
}

}  // namespace loom::sched
