#include "sched/report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "sched/validate.h"

namespace loom::sched {

namespace {

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

std::string unit_of(const Problem& p, const Op& o) {
  std::string s;
  for (std::size_t f = 0; f < p.units.size(); ++f) {
    bool used = false;
    for (auto& row : o.rrt) used |= row[f] > 0;
    if (used) s += (s.empty() ? "" : "+") + p.units[f];
  }
  return s.empty() ? "-" : s;
}

// Iteration label of copy c inside a region: in the steady state the newest copy is iteration i.
std::string iteration_label(int copy, int stages, const std::string& region) {
  if (region == "steady") {
    int back = stages - 1 - copy;
    return back == 0 ? "i" : "i-" + std::to_string(back);
  }
  if (region == "prologue") return std::to_string(copy);
  int back = stages - 1 - copy;  // epilogue: the last iterations drain
  return back == 0 ? "n-1" : "n-" + std::to_string(back + 1);
}

}  // namespace

std::string straight_line_text(const Problem& p, const Schedule& s) {
  std::ostringstream out;
  const int n = s.stages(), T = s.horizon();
  const int pro_end = (n - 1) * s.ii, steady_end = n * s.ii;
  std::string region;
  for (int t = 0; t < T; ++t) {
    std::string here = t < pro_end ? "prologue" : t < steady_end ? "steady" : "epilogue";
    std::vector<std::string> items;
    for (int c = 0; c < n; ++c)
      for (std::size_t v = 0; v < p.ops.size(); ++v)
        if (s.time[v] + c * s.ii == t) {
          std::string it = p.ops[v].name + "[" + iteration_label(c, n, here) + "]";
          if (s.has_warps()) it += "@w" + std::to_string(s.warp[v]);
          items.push_back(it);
        }
    if (here != region) {
      region = here;
      if (here == "prologue") out << "  prologue (cycles 0.." << pro_end - 1 << "):\n";
      else if (here == "steady")
        out << "  steady state (cycles " << pro_end << ".." << steady_end - 1 << ", repeated for i = " << n - 1
            << " .. n-1):\n";
      else out << "  epilogue (cycles " << steady_end << ".." << T - 1 << "):\n";
    }
    if (items.empty()) continue;
    out << "    t=" << t << ":";
    for (auto& x : items) out << " " << x;
    out << "\n";
  }
  return out.str();
}

std::string text_report(const Problem& p, const SearchResult& r) {
  std::ostringstream out;
  out << "schedule of " << (p.name.empty() ? "graph" : "'" + p.name + "'") << " on machine " << p.machine << "\n";
  if (!p.norm.scaled.empty()) {
    out << "cost normalization (U-bounded ILP, F=" << fmt("%.0f", p.norm.F)
        << (p.norm.proven_optimal ? "" : ", not proven optimal") << "):";
    for (auto& [raw, v] : p.norm.scaled) out << " " << raw << "->" << v;
    out << "\n";
  }
  out << "bounds: ResMII=" << r.bounds.res_mii;
  if (!r.bounds.res_unit.empty()) out << " (" << r.bounds.res_unit << ")";
  out << ", RecMII=" << r.bounds.rec_mii;
  if (!r.bounds.rec_cycle.empty()) out << " (" << r.bounds.rec_cycle << ")";
  out << "\n";
  if (!r.found) {
    out << "no schedule: " << r.infeasible << "\n";
  } else {
    const Schedule& s = r.schedule;
    out << "II = " << s.ii << ", length L = " << s.length << ", stages = " << s.stages() << ", Q has " << s.horizon()
        << " cycles\n";
    out << "optimal: " << (r.optimal ? "yes" : "NO (not proven)");
    if (r.optimal && !r.unconditional) out << " (Algorithm 1 scope)";
    out << " — " << r.proof << "\n";
    if (s.has_warps())
      out << "warp groups: " << groups_used(s)
          << (r.groups_minimal ? " (the fewest at this II and L)" : r.groups ? " (fewer not proven impossible)" : "") << "\n";
    out << "\n  node                 cycle stage slot  warp  unit       len regs\n";
    std::vector<int> order(p.ops.size());
    for (std::size_t v = 0; v < order.size(); ++v) order[v] = static_cast<int>(v);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return s.time[a] < s.time[b]; });
    for (int v : order) {
      const Op& o = p.ops[v];
      char line[256];
      std::snprintf(line, sizeof line, "  %-20s %5d %5d %4d  %4s  %-10s %3d %4d%s\n", o.name.c_str(), s.time[v],
                    s.time[v] / s.ii, s.time[v] % s.ii, s.has_warps() ? std::to_string(s.warp[v]).c_str() : "-",
                    unit_of(p, o).c_str(), o.len, o.regs, o.streaming ? "  (streaming: depth is a tunable)" : "");
      out << line;
    }
    const Pressure pr = peak_pressure(p, s);
    if (s.has_warps()) {
      out << "\n  registers/thread (peak per warp group):";
      for (std::size_t w = 0; w < pr.regs_per_warp.size(); ++w) out << " w" << w << "=" << pr.regs_per_warp[w];
      out << " (limit " << p.reg_limit << (p.reg_file ? ", total " + std::to_string(p.reg_file) : std::string()) << ")\n";
    } else {
      out << "\n";
    }
    // (Without warps, --no-ws, only over capacity: modulo scheduling alone does not model memory.)
    for (std::size_t m = 0; m < p.memories.size(); ++m)
      if (pr.memory_peak[m] > 0 && (s.has_warps() || pr.memory_peak[m] > p.memory_capacity[m]))
        out << "  " << p.memories[m] << " peak: " << pr.memory_peak[m] << " of " << p.memory_capacity[m] << " bytes"
            << (pr.memory_peak[m] > p.memory_capacity[m] ? " (over: modulo scheduling alone, --no-ws, does not model memory)" : "")
            << "\n";
    out << "\n" << straight_line_text(p, s);
  }
  out << "\nsolve: " << fmt("%.3f", r.seconds) << " s total (" << fmt("%.3f", r.cpu_seconds) << " s CPU); modulo ILP " << r.ilp_calls << " call(s) "
      << fmt("%.3f", r.ilp_seconds) << " s; SMT " << r.smt_calls << " call(s) " << fmt("%.3f", r.smt_seconds)
      << " s, rlimit " << r.rlimit_used << (r.budget_exhausted ? "; BUDGET EXHAUSTED" : "") << "\n";
  for (auto& st : r.steps) {
    out << "  [" << st.solver << "] II=" << st.ii;
    if (st.length) out << " L=" << st.length;
    out << ": " << st.result << " (" << fmt("%.3f", st.seconds) << " s)\n";
  }
  return out.str();
}

nlohmann::json json_report(const Problem& p, const SearchResult& r) {
  nlohmann::json j;
  j["graph"] = p.name;
  j["machine"] = p.machine;
  j["found"] = r.found;
  j["optimal"] = r.found && r.optimal;
  j["optimal_unconditional"] = r.found && r.unconditional;
  j["proof"] = r.found ? r.proof : r.infeasible;
  j["groups"] = r.found ? groups_used(r.schedule) : 0;
  j["groups_minimal"] = r.found && r.groups_minimal;
  j["seconds"] = r.seconds;
  j["cpu_seconds"] = r.cpu_seconds;
  j["bounds"] = {{"ResMII", r.bounds.res_mii}, {"RecMII", r.bounds.rec_mii}, {"res_unit", r.bounds.res_unit},
                 {"rec_cycle", r.bounds.rec_cycle}};
  nlohmann::json norm = nlohmann::json::object();
  for (auto& [raw, v] : p.norm.scaled) norm[std::to_string(raw)] = v;
  j["normalization"] = {{"scaled", norm}, {"F", p.norm.F}, {"proven_optimal", p.norm.proven_optimal}};
  j["solver"] = {{"ilp_calls", r.ilp_calls}, {"ilp_seconds", r.ilp_seconds}, {"smt_calls", r.smt_calls},
                 {"smt_seconds", r.smt_seconds}, {"rlimit", r.rlimit_used}, {"budget_exhausted", r.budget_exhausted}};
  nlohmann::json steps = nlohmann::json::array();
  for (auto& st : r.steps)
    steps.push_back({{"II", st.ii}, {"L", st.length}, {"solver", st.solver}, {"result", st.result}, {"seconds", st.seconds}});
  j["steps"] = steps;
  if (!r.found) {
    j["II"] = nullptr;
    j["length"] = nullptr;
    j["schedule"] = nlohmann::json::object();
    j["warps"] = nlohmann::json::object();
    return j;
  }
  const Schedule& s = r.schedule;
  j["II"] = s.ii;
  j["length"] = s.length;
  j["stages"] = s.stages();
  nlohmann::json sched = nlohmann::json::object(), warps = nlohmann::json::object();
  for (std::size_t v = 0; v < p.ops.size(); ++v) {
    sched[p.ops[v].name] = s.time[v];
    if (s.has_warps()) warps[p.ops[v].name] = s.warp[v];
  }
  j["schedule"] = sched;
  j["warps"] = warps;
  nlohmann::json stream = nlohmann::json::array();
  for (auto& o : p.ops)
    if (o.streaming) stream.push_back(o.name);
  j["streaming"] = stream;
  return j;
}

}  // namespace loom::sched
