#include "sched/problem.h"

#include <cmath>
#include <functional>
#include <map>

#include "sched/diagnostic.h"

namespace loom::sched {

bool Problem::has_variable_latency() const {
  for (const Op& o : ops)
    if (o.variable_latency) return true;
  return false;
}

namespace {

struct RawNode {
  std::vector<std::map<std::string, int>> rrt;  // raw rows (explicit tables only)
  std::string unit;
  std::int64_t cycles = 0;
  bool variable_latency = false;
  bool blocking_consumers = false;
  std::int64_t spill = 0;
};

std::string known_ops(const Machine& m) {
  std::string s;
  for (auto& [k, v] : m.ops) s += (s.empty() ? "" : ", ") + k;
  return s;
}

RawNode resolve(const GraphNode& n, const Machine& m) {
  RawNode r;
  const OpModel* om = nullptr;
  if (!n.op.empty()) {
    auto it = m.ops.find(n.op);
    if (it == m.ops.end())
      throw UserError("node '" + n.name + "': machine '" + m.name + "' has no op '" + n.op + "' (known: " +
                          known_ops(m) + ")",
                      n.pos);
    om = &it->second;
    r.blocking_consumers = om->blocking_consumers;
    r.variable_latency = om->variable_latency;
  }
  if (!n.rrt.empty()) {
    r.rrt = n.rrt;
    r.cycles = static_cast<std::int64_t>(n.rrt.size());
  } else {
    r.unit = !n.unit.empty() ? n.unit : (om ? om->unit : "");
    if (n.cycles) {
      r.cycles = *n.cycles;
    } else {
      double work = 1;
      for (auto d : n.shape) work *= static_cast<double>(d);
      r.cycles = static_cast<std::int64_t>(std::ceil(work / om->per_clock));
    }
  }
  if (n.variable_latency) r.variable_latency = *n.variable_latency;
  for (auto& row : r.rrt)
    for (auto& [u, c] : row)
      if (m.unit_index(u) < 0) throw UserError("node '" + n.name + "' uses unknown unit '" + u + "'", n.pos);
  if (!r.unit.empty() && m.unit_index(r.unit) < 0)
    throw UserError("node '" + n.name + "' uses unknown unit '" + r.unit + "' (machine '" + m.name + "')", n.pos);
  if (n.spill_cost) r.spill = *n.spill_cost;
  else if (n.regs > 0) r.spill = std::max<std::int64_t>(m.cross_warp_min, m.cross_warp_per_reg * n.regs);
  return r;
}

void check_zero_distance_cycles(const Problem& p, const Graph& g) {
  const int n = static_cast<int>(p.ops.size());
  std::vector<std::vector<int>> succ(n);
  for (const Dep& d : p.deps)
    if (d.distance == 0) succ[d.from].push_back(d.to);
  std::vector<int> state(n, 0), stack;
  std::function<bool(int)> dfs = [&](int v) {
    state[v] = 1;
    stack.push_back(v);
    for (int w : succ[v]) {
      if (state[w] == 1) {
        std::string path;
        auto it = std::find(stack.begin(), stack.end(), w);
        for (; it != stack.end(); ++it) path += p.ops[*it].name + " -> ";
        throw UserError("dependence cycle with distance 0: " + path + p.ops[w].name +
                            " (a loop-carried edge needs \"distance\" >= 1)",
                        g.nodes[w].pos);
      }
      if (state[w] == 0 && dfs(w)) return true;
    }
    stack.pop_back();
    state[v] = 2;
    return false;
  };
  for (int v = 0; v < n; ++v)
    if (state[v] == 0) dfs(v);
}

}  // namespace

Problem build_problem(const Graph& g, const Machine& m, const BuildOptions& opt) {
  Problem p;
  p.name = g.name;
  p.machine = m.name;
  for (auto& u : m.units) {
    p.units.push_back(u.name);
    p.capacity.push_back(u.capacity);
  }
  for (auto& mem : m.memories) {
    p.memories.push_back(mem.name);
    p.memory_capacity.push_back(mem.capacity);
  }
  p.warps = m.warps;
  p.reg_limit = m.reg_limit;
  p.reg_file = m.reg_file;

  const std::size_t n = g.nodes.size();
  std::vector<RawNode> raw;
  for (const GraphNode& gn : g.nodes) raw.push_back(resolve(gn, m));
  std::vector<bool> has_pred(n, false);
  for (const GraphEdge& e : g.edges) has_pred[e.to] = true;
  std::vector<bool> streaming(n);
  for (std::size_t v = 0; v < n; ++v) streaming[v] = raw[v].variable_latency && !has_pred[v];

  std::vector<std::int64_t> costs;
  for (std::size_t v = 0; v < n; ++v) {
    if (!streaming[v]) costs.push_back(raw[v].cycles);
    costs.push_back(raw[v].spill);
  }
  for (const GraphEdge& e : g.edges)
    if (e.delay && !streaming[e.from]) costs.push_back(*e.delay);
  if (opt.normalize) {
    p.norm = normalize_costs(costs, opt.norm_budget, opt.max_seconds);
  } else {
    for (auto c : costs) {
      if (c > 100000) throw UserError("cycle count " + std::to_string(c) + " is too large without normalization");
      if (c > 0) p.norm.scaled[c] = static_cast<int>(c);
    }
  }

  for (std::size_t v = 0; v < n; ++v) {
    const GraphNode& gn = g.nodes[v];
    const RawNode& r = raw[v];
    Op op;
    op.name = gn.name;
    op.regs = gn.regs;
    op.variable_latency = r.variable_latency;
    op.streaming = streaming[v];
    op.spill = p.norm.map(r.spill);
    op.mem.assign(p.memories.size(), 0);
    for (auto& [mem, bytes] : gn.memory) {
      int idx = m.memory_index(mem);
      if (idx < 0) {
        if (bytes == 0) continue;
        throw UserError("node '" + gn.name + "' uses memory '" + mem + "' that machine '" + m.name + "' lacks",
                        gn.pos);
      }
      op.mem[idx] = bytes;
    }
    int len = op.streaming ? 0 : p.norm.map(r.cycles);
    op.len = len;
    op.rrt.assign(len, std::vector<int>(p.units.size(), 0));
    for (int c = 0; c < len; ++c) {
      if (r.rrt.empty()) {
        op.rrt[c][m.unit_index(r.unit)] = 1;
      } else {
        // Resample the raw table onto the normalized length.
        std::size_t src = static_cast<std::size_t>(static_cast<double>(c) * r.rrt.size() / len);
        for (auto& [u, k] : r.rrt[src]) op.rrt[c][m.unit_index(u)] = k;
      }
    }
    for (int c = 0; c < len; ++c)
      for (std::size_t f = 0; f < p.units.size(); ++f)
        if (op.rrt[c][f] > p.capacity[f])
          throw UserError("node '" + gn.name + "' needs " + std::to_string(op.rrt[c][f]) + " instances of unit '" +
                              p.units[f] + "' but the machine has " + std::to_string(p.capacity[f]),
                          gn.pos);
    p.ops.push_back(std::move(op));
  }
  // Teams: each op of one names the team's first op. Variable-latency ops take warp group 0 and
  // the others the rest (joint_smt.h), so a team cannot hold both.
  std::map<std::string, int> first_of_team;
  for (std::size_t v = 0; v < n; ++v) {
    const std::string& t = g.nodes[v].team;
    if (t.empty()) continue;
    p.ops[v].team = first_of_team.emplace(t, static_cast<int>(v)).first->second;
    const Op& first = p.ops[static_cast<std::size_t>(p.ops[v].team)];
    if (first.variable_latency != p.ops[v].variable_latency)
      throw UserError("nodes '" + first.name + "' and '" + p.ops[v].name + "' are both in team '" + t + "', but '" +
                          (first.variable_latency ? first.name : p.ops[v].name) +
                          "' has variable latency: variable-latency ops run on a warp group of their own",
                      g.nodes[v].pos);
  }
  for (const GraphEdge& e : g.edges) {
    Dep d;
    d.from = e.from;
    d.to = e.to;
    d.distance = e.distance;
    if (streaming[e.from]) d.delay = 0;
    else d.delay = e.delay ? p.norm.map(*e.delay) : p.ops[e.from].len;
    d.blocking = e.blocking ? *e.blocking : raw[e.from].blocking_consumers;
    p.deps.push_back(d);
  }
  check_zero_distance_cycles(p, g);
  for (const Op& o : p.ops)
    for (std::size_t k = 0; k < p.memories.size(); ++k)
      if (o.mem[k] > p.memory_capacity[k])
        throw UserError("node '" + o.name + "' needs " + std::to_string(o.mem[k]) + " bytes of " + p.memories[k] +
                            " but the machine has " + std::to_string(p.memory_capacity[k]),
                        g.nodes[&o - p.ops.data()].pos);
  return p;
}

}  // namespace loom::sched
