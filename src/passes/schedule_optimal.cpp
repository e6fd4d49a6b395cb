// schedule(optimal): the compiler solves an instance's loop schedule and derives the instance's
// warp specialization, pipeline depth and turns from it. See schedule_optimal.h.
#include "passes/schedule_optimal.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iomanip>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "codegen/cuda.h"
#include "passes/pipeline.h"
#include "passes/schedule_graph.h"
#include "passes/warp_specialize.h"
#include "sched/bounds.h"
#include "sched/diagnostic.h"
#include "sched/graph.h"
#include "sched/machine.h"
#include "sched/problem.h"
#include "sched/search.h"
#include "sched/svg.h"
#include "sched/validate.h"

namespace loom {
namespace {

// The search budget: a Z3 resource limit (deterministic: the same answer on every machine) and a
// wall-clock backstop that only a very slow machine reaches. A scheduled kernel should compile in
// under 10 s (issue 12): the default, 4 M units (Instance::kDefaultScheduleBudget), is about 1 s of
// Z3 work on a 2-core machine (2026-12-04: the FlashAttention-2 D > 128 loop spends it in 0.8 s of
// CPU and falls back; `schedule(optimal, budget=80)` finds and proves its II = 44 in about 4.5 s),
// and the FlashAttention-2 D <= 128 loops are solved and proven with about 0.55 M; the fewest-groups
// objective gets an eighth of the search's, at least 0.5 M (it proves the GEMM family's one compute
// group at once). A budget= on the instance scales both; the teams search keeps its own.
// Costs are normalized to a sum of at most kNormBudget units (costnorm.h): coarser than `loom
// schedule`'s 300, so the time-indexed ILP of an attention loop has ~45 cycles to place, not ~160.
constexpr unsigned long long kUnitsPerBudget = 1'000'000ULL;  // budget=B: B million units
constexpr unsigned long long kRlimit = Instance::kDefaultScheduleBudget * kUnitsPerBudget;
constexpr unsigned long long kGroupsRlimit = 500'000ULL;
constexpr int kNormBudget = 100;
constexpr double kWallSeconds = 60;
constexpr int64_t kMaxDepth = 8;

Instance* find_instance(Program& p, const std::string& name) {
  for (Instance& in : p.mapping->instances)
    if (in.name.name == name) return &in;
  return nullptr;
}

// Every schedule(optimal) instance of `p` given the provisional settings (warpspecialize, 2 deep,
// clause cleared), so that lowering `p` does not come back here.
void provisional(Program& p) {
  for (Instance& in : p.mapping->instances)
    if (in.schedule_optimal) {
      in.schedule_optimal = false;
      in.warp_specialize = true;
      in.pipeline = 2;
    }
}

[[noreturn]] void fail(const Instance& in, const std::string& message, const std::string& hint = "") {
  Diagnostic d;
  d.loc = in.schedule_loc;
  d.message = "schedule(optimal) on instance '" + in.name.name + "': " + message;
  d.hint = hint;
  throw CompileError(d);
}

// What the settings are read from: the solved schedule, or the bounds alone when no schedule was
// found (the fallback).
struct Derived {
  bool solved = false;
  bool warp_specialize = true;
  int compute_groups = 1;
  double ii_cycles = 0;  // raw machine cycles
  int load_regs = 0;     // the most registers per thread the schedule keeps live on a load group
  int compute_regs = 0;  // ... on a compute group
};

// The register split of a warp-specialized kernel read off the schedule: the DMA warpgroup keeps
// setmaxnreg's least count plus what the schedule keeps live on the load groups (their values are
// in shared memory, so the least: FlashAttention-3's 24), and the compute warpgroups share the rest
// of the block's pool evenly (src/passes/warp_specialize.h). nullopt when the machine has no
// setmaxnreg or the rest is too small to split.
std::optional<std::pair<int64_t, int64_t>> register_split(const Derived& d, int64_t compute_warpgroups, const Machine& m) {
  const Limits& l = m.limits;
  if (l.setmaxnreg_step <= 0 || compute_warpgroups < 1) return std::nullopt;
  const int64_t step = l.setmaxnreg_step;
  const int64_t dma = std::min<int64_t>(l.setmaxnreg_max, l.setmaxnreg_min + (d.load_regs + step - 1) / step * step);
  const int64_t compute = compute_regs_left(dma, 1, compute_warpgroups, m);
  if (compute < l.setmaxnreg_min || compute < dma) return std::nullopt;
  return std::make_pair(dma, compute);
}

// The fallback's turns (a rule, not a solved schedule): whether the GEMMs bound the loop's II — the
// tensor core's work sets ResMII (at least RecMII), or the critical recurrence runs through a GEMM —
// while ops of the loop wait on their results (blocking edges out of the GEMMs). One compute group
// then leaves the tensor core idle while it waits, so two compute warpgroups taking turns on it
// (pingpong, FlashAttention-3's structure) is the rule when the joint search cannot decide.
// `gemm_ops`: the graph's nodes whose op is a GEMM.
bool gemms_bound_with_waits(const sched::Problem& p, const sched::IIBounds& b, const std::vector<char>& gemm_ops) {
  bool waits = false;
  for (const sched::Dep& d : p.deps)
    if (d.blocking && gemm_ops[static_cast<size_t>(d.from)] && !gemm_ops[static_cast<size_t>(d.to)]) waits = true;
  if (!waits) return false;
  if (b.res_mii >= b.rec_mii && !b.res_unit.empty())
    for (size_t v = 0; v < p.ops.size(); ++v)
      for (const auto& row : p.ops[v].rrt)
        for (size_t f = 0; f < row.size(); ++f)
          if (gemm_ops[v] && row[f] && p.units[f] == b.res_unit) return true;
  if (b.rec_mii >= b.res_mii) {
    std::istringstream cycle(b.rec_cycle);  // "A -> B -> A"
    for (std::string tok; cycle >> tok;)
      for (size_t v = 0; v < p.ops.size(); ++v)
        if (gemm_ops[v] && p.ops[v].name == tok) return true;
  }
  return false;
}

// The scheduler's problem for a graph the compiler built (schedule_graph.h): on its machine (a built-in
// model's name, or an object: the tile loop's), the costs normalized to kNormBudget units; `names` and
// `ops`, when given, get the nodes' names and op kinds in node order.
sched::Problem normalized_problem(const nlohmann::ordered_json& g, std::vector<std::string>* names = nullptr,
                                  std::vector<std::string>* ops = nullptr) {
  const sched::Graph graph = sched::parse_graph(g.dump());
  const sched::Machine m = graph.machine.is_object()
                               ? sched::machine_from_json(graph.machine)
                               : sched::builtin_machine(graph.machine.is_string() ? graph.machine.get<std::string>() : "hopper");
  sched::BuildOptions bo;
  bo.norm_budget = kNormBudget;
  for (const sched::GraphNode& n : graph.nodes) {
    if (names) names->push_back(n.name);
    if (ops) ops->push_back(n.op);
  }
  return sched::build_problem(graph, m, bo);
}

// The most registers a thread the schedule keeps live on a group of only loads (`load_regs`) and on
// the others (`compute_regs`): the validator's liveness (peak_pressure).
void register_peaks(const sched::Problem& p, const sched::Schedule& s, const std::set<int>& load_only, int& load_regs, int& compute_regs) {
  const sched::Pressure pressure = sched::peak_pressure(p, s);
  for (size_t w = 0; w < pressure.regs_per_warp.size(); ++w) {
    int& most = load_only.count(static_cast<int>(w)) ? load_regs : compute_regs;
    most = std::max(most, pressure.regs_per_warp[w]);
  }
}

// The ring's depth for an II of `ii_cycles`: ceil(load latency / II) + 1, at least 2 and at most
// kMaxDepth (2 without a latency model).
int64_t ring_depth(int64_t latency, double ii_cycles) {
  if (latency <= 0 || ii_cycles <= 0) return 2;
  return std::clamp<int64_t>(static_cast<int64_t>(std::ceil(static_cast<double>(latency) / ii_cycles)) + 1, 2, kMaxDepth);
}

// Raw cycles per normalized cycle (the normalization keeps ratios: costnorm.h).
double cycles_per_unit(const sched::Problem& p) {
  double scale = 1;
  for (const auto& [raw, scaled] : p.norm.scaled)
    if (scaled > 0) scale = static_cast<double>(raw) / static_cast<double>(scaled);  // the largest cost: the most exact ratio
  return scale;
}

// Teams (docs/schedule.md, "Teams"): how many teams of the mapping's compute warpgroups take the
// block's tiles in turn, from the schedules of the tile loop (TILES in schedule_graph.h) with T = 1,
// 2, ... tiles an iteration, each on a machine of T warp groups with the registers a thread of T
// teams gets. A tile's epilogue waits for its loop's wgmma results (a blocking edge), so on one team
// the next tile's loop cannot run under it; on T teams it can. T teams are realizable when the
// schedule puts each tile copy's ops on one group and the T loops on T groups; the fewest teams
// whose cycles a tile are the least (by more than kTeamsMargin, the normalization's rounding) win,
// one team's by its bound (ii_bounds: RecMII through the team's registers), not a solve, so teams
// are chosen only when their schedule beats every one-team schedule;
// T + 1 teams are tried only while T teams were faster a tile than T - 1. Each solve has twice the
// loop search's budget: two teams of one 128 x 128 tile each (two 128-register accumulators) take
// 4.5 M units, ~1.5 s of Z3 work, and a query gets at most half of what is left.
constexpr unsigned long long kTeamsRlimit = 2 * kRlimit;
// CBC (the modulo ILP) has no deterministic budget: a wall-clock backstop per teams search (the
// time-indexed ILP can take tens of seconds to refute an II on a five-node tile graph).
constexpr double kTeamsWallSeconds = 5;
constexpr double kTeamsMargin = 0.02;

// One row per graph node: its name, cycle, stage and warp group (the --emit=schedule tables); `note`
// adds a remark after a row.
void schedule_rows(std::ostream& o, const std::vector<std::string>& names, const sched::Schedule& s, const std::string& indent,
                   int name_width, const std::function<std::string(size_t)>& note = {}) {
  for (size_t i = 0; i < names.size(); ++i)
    o << indent << std::left << std::setw(name_width) << names[i] << std::right << std::setw(7) << s.time[i] << std::setw(7)
      << s.time[i] / std::max(1, s.ii) << std::setw(6) << s.warp[i] << (note ? note(i) : std::string()) << "\n";
}

struct Teams {
  int teams = 1;
  std::vector<std::string> graphs;  // the tile loop's graph per T tried (JSON)
  std::string report;  // one line per T tried, and the chosen tile schedule
  std::string why;     // the reason for the choice (the note's "realized" text)
  std::string svg;     // the chosen teams' tile schedule drawn (schedule_svg); empty for one team
};

Teams choose_teams(const ir::Function& f, const ir::Op& loop, const Machine& m, double loop_cycles, int64_t tile_wgs) {
  Teams out;
  const Limits& l = m.limits;
  const int64_t most = tile_wgs > 0 ? 4 / tile_wgs : 0;  // alternate(T): T x G compute warpgroups, at most 4 (alternate.cpp)
  if (l.setmaxnreg_step <= 0 || most < 2) {
    out.why = l.setmaxnreg_step <= 0 ? "one team (no per-warpgroup register split on this machine)"
                                     : "one team (" + std::to_string(tile_wgs) + " warpgroups a tile: two teams would be more than 4)";
    return out;
  }
  std::ostringstream rep;
  rep << "  teams (the tile loop, the pipelined loop one node of " << std::llround(loop_cycles) << " cycles):\n";
  double best = 0;
  std::string best_table;
  for (int t = 1; t <= most && (t <= 2 || out.teams == t - 1); ++t) {  // T + 1 only after T won
    // A thread's registers for the schedule's values: the least of what setmaxnreg leaves a compute
    // warpgroup and what a thread gets at launch (the kernel's variant without a DMA role, for
    // tensors TMA cannot address, runs without setmaxnreg), less what the schedule does not model.
    const int64_t split = compute_regs_left(l.setmaxnreg_min, 1, t * tile_wgs, m);
    if (split < l.setmaxnreg_min) break;
    const int64_t launch = regs_at_launch(1 + t * tile_wgs, m);
    const int64_t regs = std::min(split, launch) - l.unmodeled_regs;
    if (regs <= 0) break;
    sched::SearchResult r;
    sched::Problem prob;
    std::vector<std::string> names;
    try {
      const nlohmann::ordered_json g = tile_schedule_graph(f, loop, m, std::llround(loop_cycles), t, static_cast<int>(regs));
      out.graphs.push_back(g.dump(1) + "\n");
      prob = normalized_problem(g, &names);
      if (t > 1) {
        sched::SearchOptions so;
        so.time_limit = kTeamsWallSeconds;
        so.rlimit = kTeamsRlimit;
        so.groups_time_limit = kTeamsWallSeconds;
        so.groups_rlimit = kTeamsRlimit / 4;
        r = sched::search_schedule(prob, so);
      }
    } catch (const CompileError& e) {
      out.why = "one team (" + e.diagnostic.message + ")";
      return out;
    } catch (const sched::UserError& e) {
      out.why = std::string("one team (the scheduler cannot model the tile loop: ") + e.what() + ")";
      return out;
    }
    rep << "    " << t << " team(s) of " << tile_wgs << " warpgroup(s), " << regs << " registers a thread for its values (of "
        << std::min(split, launch) << "): ";
    if (t == 1) {  // one team: its bound, not a solve (its tiles run one after another on it)
      const sched::IIBounds b = sched::ii_bounds(prob);
      best = static_cast<double>(b.mii()) * cycles_per_unit(prob);
      rep << "II >= " << b.mii() << " (" << std::llround(best) << " cycles) a tile, "
          << (b.rec_mii >= b.res_mii ? "RecMII (" + b.rec_cycle + ")" : "ResMII (unit " + b.res_unit + ")") << "\n";
      continue;
    }
    if (!r.found || !r.schedule.has_warps()) {
      rep << "no schedule (" << (r.budget_exhausted ? "out of budget" : r.infeasible) << ")\n";
      continue;
    }
    // Realizable: every op of tile copy k on the group of loop#k, and the loops on t groups.
    auto copy_of = [](const std::string& n) { return n.find('#') == std::string::npos ? std::string() : n.substr(n.find('#')); };
    std::map<std::string, int> loop_group;  // tile copy ("#k", or "" for one) -> its loop's group
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i].rfind("loop:", 0) == 0) loop_group[copy_of(names[i])] = r.schedule.warp[i];
    std::set<int> groups;
    for (auto& [k, g] : loop_group) groups.insert(g);
    bool whole = static_cast<int>(groups.size()) == t;
    for (size_t i = 0; i < names.size() && whole; ++i)  // (a turn is a barrier between teams: any group)
      whole = names[i].rfind("turn:", 0) == 0 || r.schedule.warp[i] == loop_group[copy_of(names[i])];
    const double per_tile = static_cast<double>(r.schedule.ii) * cycles_per_unit(prob) / t;
    rep << "II " << r.schedule.ii << " (" << std::llround(per_tile * t) << " cycles) for " << t << " tile(s), " << std::llround(per_tile)
        << " a tile" << (r.optimal ? ", optimal" : ", not proven optimal");
    if (!whole) {
      rep << "; not teams (the schedule does not keep each tile on a group of its own)\n";
      continue;
    }
    rep << "\n";
    if (per_tile < best * (1 - kTeamsMargin)) {
      best = per_tile;
      out.teams = t;
      std::ostringstream table;
      schedule_rows(table, names, r.schedule, "      ", 24);
      best_table = table.str();
      out.svg = sched::schedule_svg(prob, r.schedule, "the tile loop around `" + loop.origin + "` on " + std::to_string(t) + " teams (" + std::to_string(t) + " tiles an iteration)");
    }
  }
  rep << "    chosen: " << out.teams << " team(s)\n" << best_table;
  out.report = rep.str();
  out.why = out.teams > 1 ? "alternate(" + std::to_string(out.teams) + ") (the tile loop's schedule: " + std::to_string(out.teams) +
                                " teams take the tiles in turn, a tile's epilogue under the next team's loop)"
                          : "one team (the tile loop's schedule: more teams that fit the registers are not faster a tile)";
  return out;
}

// Turns (docs/schedule.md, "Turns"): a loop whose schedule puts its compute on two or more warp
// groups gets `pingpong`, and in the kernel each compute warpgroup then runs the whole loop over
// rows of its own, the warpgroups taking turns on the tensor core. That is another graph than the
// one-tile loop's: subtile_schedule_graph copies every op but the loads once per compute warpgroup,
// each copy a team (its ops on one warp group, the copies' incumbent in modulo_ilp.cpp). Solved
// without the fewest-groups objective (the teams fix the groups), under the loop search's budget.
// Its schedule is the turns when each sub-tile's ops are on a warp group of their own, the loads on
// another, and each sub-tile's GEMMs are one contiguous turn of the tensor core per II.
// Z3's share of it is bounded by the loop search's resource budget; CBC (the modulo ILP, which with the
// copies' incumbent does most of the work here) has none, so a wall-clock backstop, as for the teams:
// flash_attention_2's three loops take 0.7-2.6 s on this 2-core machine; the causal flash_attention_3's
// loops 7.8 s and more than 20 s (which would put a kernel's compile past 10 s: they stop at 8 s, their
// turns then checked by the one-tile schedule alone).
constexpr double kSubtilesWallSeconds = 8;

struct SubtileTurns {
  bool solved = false, turns = false;
  std::string report, why, svg;
  std::vector<std::string> names, ops;
  sched::Schedule schedule;
  double ii_cycles = 0;              // raw machine cycles of an II (all sub-tiles: the tile's iteration)
  int load_regs = 0, compute_regs = 0;  // the most registers a thread the schedule keeps live on a load / compute group
};

SubtileTurns solve_subtiles(const nlohmann::ordered_json& loop_graph, int subtiles, unsigned long long rlimit, double wall,
                            const std::string& title) {
  SubtileTurns out;
  std::ostringstream rep;
  rep << "  sub-tiles (the turns): the loop as " << subtiles << " sub-tile teams, one a compute warpgroup";
  sched::SearchResult r;
  sched::Problem prob;
  std::vector<int> team;  // per node: its sub-tile, -1 for a shared load
  try {
    const nlohmann::ordered_json g = subtile_schedule_graph(loop_graph, subtiles);
    prob = normalized_problem(g, &out.names, &out.ops);
    for (const std::string& n : out.names) {
      const size_t hash = n.rfind('#');
      team.push_back(hash == std::string::npos ? -1 : std::stoi(n.substr(hash + 1)));
    }
    sched::SearchOptions so;
    so.time_limit = wall;
    so.rlimit = rlimit;
    so.minimize_groups = false;
    r = sched::search_schedule(prob, so);
  } catch (const sched::UserError& e) {
    out.report = rep.str() + ": the scheduler cannot model it (" + e.what() + ")\n";
    out.why = "the sub-tile schedule: none (the scheduler cannot model it)";
    return out;
  }
  if (!r.found || !r.schedule.has_warps()) {
    out.report = rep.str() + ": no schedule (" + (r.budget_exhausted ? std::string("out of budget") : r.infeasible) + ")\n";
    out.why = "the sub-tile schedule: none within the budget";
    return out;
  }
  out.solved = true;
  out.schedule = r.schedule;
  const sched::Schedule& sc = r.schedule;
  const double scale = cycles_per_unit(prob);
  out.ii_cycles = static_cast<double>(sc.ii) * scale;
  std::set<int> load_groups;  // (no sub-tile shares them when the schedule takes turns, below)
  for (size_t i = 0; i < team.size(); ++i)
    if (team[i] < 0) load_groups.insert(sc.warp[i]);
  register_peaks(prob, sc, load_groups, out.load_regs, out.compute_regs);
  rep << ": II = " << sc.ii << " (" << std::llround(sc.ii * scale) << " cycles for the " << subtiles << " sub-tiles), length " << sc.length
      << ", " << sc.stages() << " stage(s), " << sched::groups_used(sc) << " warp group(s)\n"
      << "    optimal: " << (r.optimal ? "yes" : "not proven") << " - " << r.proof << "\n"
      << "    solve: " << std::fixed << std::setprecision(2) << r.seconds << " s (" << r.smt_calls << " SMT, " << r.ilp_calls
      << " ILP call(s))\n";
  schedule_rows(rep, out.names, sc, "    ", 24);
  // Each sub-tile on a group of its own, the loads on others.
  std::map<int, std::set<int>> groups_of;  // sub-tile (-1: the loads) -> its groups
  for (size_t i = 0; i < team.size(); ++i) groups_of[team[i]].insert(sc.warp[i]);
  std::string broken;
  std::set<int> taken;
  for (auto& [t, gs] : groups_of) {
    if (t < 0) continue;
    if (gs.size() != 1) broken = "sub-tile " + std::to_string(t) + "'s ops are on " + std::to_string(gs.size()) + " warp groups";
    else if (!taken.insert(*gs.begin()).second) broken = "two sub-tiles share a warp group";
  }
  if (broken.empty() && groups_of.count(-1))
    for (int gl : groups_of[-1])
      if (taken.count(gl)) broken = "the loads share a warp group with a sub-tile";
  // Each sub-tile's GEMMs one contiguous turn of the tensor core per II (in slot order, cyclically).
  std::vector<std::pair<int, size_t>> tc;  // (slot, node)
  for (size_t i = 0; i < out.ops.size(); ++i)
    if (out.ops[i] == "gemm") tc.push_back({sc.time[i] % sc.ii, i});
  std::sort(tc.begin(), tc.end());
  int changes = 0;
  for (size_t k = 0; k < tc.size(); ++k) changes += team[tc[k].second] != team[tc[(k + 1) % tc.size()].second];
  if (broken.empty() && changes != subtiles) broken = "the sub-tiles' GEMMs interleave on the tensor core (" + std::to_string(changes) + " hand-overs an II, not " + std::to_string(subtiles) + ")";
  std::string order;
  for (size_t k = 0; k < tc.size(); ++k) {
    const size_t i = tc[k].second;
    order += (k == 0 ? "" : team[i] != team[tc[k - 1].second] ? " | " : ", ") + out.names[i] + " (stage " + std::to_string(sc.time[i] / sc.ii) + ")";
  }
  out.turns = broken.empty();
  rep << "    the tensor core an II, in slot order: " << order << "\n"
      << "    turns: " << (out.turns ? "yes (each sub-tile on a warp group of its own, one turn each on the tensor core)" : "no (" + broken + ")") << "\n";
  out.report = rep.str();
  out.why = out.turns ? "the sub-tile schedule's turns: each of the " + std::to_string(subtiles) + " sub-tiles on a warp group of its own, one turn each on the tensor core" +
                            std::string(r.optimal ? ", proven optimal" : "")
                      : "the sub-tile schedule does not take turns: " + broken;
  out.svg = sched::schedule_svg(prob, sc, title + " as " + std::to_string(subtiles) + " sub-tiles");
  return out;
}

}  // namespace

bool has_schedule_optimal(const Program& p) {
  if (!p.mapping) return false;
  for (const Instance& in : p.mapping->instances)
    if (in.schedule_optimal) return true;
  return false;
}

Program realize_optimal_schedules(const Program& p, const TaskTree& tree, std::vector<ir::ScheduleNote>& notes) {
  Program out = p;
  if (!out.mapping) return out;
  std::vector<std::string> names;
  for (const Instance& in : out.mapping->instances)
    if (in.schedule_optimal) names.push_back(in.name.name);
  for (const std::string& name : names) {
    Instance& in = *find_instance(out, name);
    ir::ScheduleNote note;
    note.instance = name;
    note.loc = in.schedule_loc;
    const int64_t budget = in.schedule_budget.value_or(Instance::kDefaultScheduleBudget);  // millions of units
    const unsigned long long rlimit = static_cast<unsigned long long>(budget) * kUnitsPerBudget;
    // 1. Provisional lowering (every other schedule(optimal) instance provisional too).
    Program prov = out;
    provisional(prov);
    ir::Function f0 = lower_to_event_ir(prov, tree);
    const ir::Op* loop = nullptr;
    for (const ir::Op* L : pipelined_loops(f0))
      if (L->origin.rfind(name + ":", 0) == 0) {
        loop = L;
        break;
      }
    if (!loop) fail(in, "the kernel has no pipelined loop of this instance to schedule",
                    "schedule(optimal) applies to the block variant whose srange loop the kernel pipelines");
    // 2. The graph and the search.
    std::ostringstream report;
    Derived d;
    sched::SearchResult r;
    std::vector<std::string> node_names, node_ops;
    double scale = 1;
    std::string why_not;
    bool fallback_turns = false;  // the fallback's rule (gemms_bound_with_waits)
    nlohmann::ordered_json loop_graph;  // the one-tile graph (solve_subtiles copies it)
    try {
      loop_graph = schedule_graph(f0, *loop, *tree.machine);
      const sched::Problem prob = normalized_problem(loop_graph, &node_names, &node_ops);
      scale = cycles_per_unit(prob);
      sched::SearchOptions so;
      // The backstop grows with the budget (a second a million units, 4-8 times what they take
      // here), so that a large budget=B is still spent by the deterministic count, not the clock.
      const double wall = std::max(kWallSeconds, static_cast<double>(budget));
      so.time_limit = wall;
      so.rlimit = rlimit;
      so.groups_time_limit = wall;
      so.groups_rlimit = std::max(kGroupsRlimit, rlimit / 8);
      r = sched::search_schedule(prob, so);
      if (r.found && r.schedule.has_warps())
        note.svg = sched::schedule_svg(prob, r.schedule, "schedule(optimal) of instance '" + name + "': " + loop->origin);
      d.ii_cycles = static_cast<double>(r.found ? r.schedule.ii : r.bounds.mii()) * scale;
      if (r.found && r.schedule.has_warps()) {
        d.solved = true;
        std::set<int> load_warps, compute_warps;
        for (size_t i = 0; i < node_ops.size(); ++i)
          (node_ops[i] == "tma_load" ? load_warps : compute_warps).insert(r.schedule.warp[i]);
        d.warp_specialize = !load_warps.empty();
        for (int w : load_warps)
          if (compute_warps.count(w)) d.warp_specialize = false;
        d.compute_groups = std::max<int>(1, static_cast<int>(compute_warps.size()));
        std::set<int> load_only;
        for (int w : load_warps)
          if (!compute_warps.count(w)) load_only.insert(w);
        register_peaks(prob, r.schedule, load_only, d.load_regs, d.compute_regs);
      } else {
        why_not = r.budget_exhausted ? "the search ran out of its budget (" + std::to_string(budget) +
                                           " million solver units) before it found a schedule"
                                     : "the search found no schedule (" + r.infeasible + ")";
        std::vector<char> gemm_ops(prob.ops.size(), 0);
        for (size_t i = 0; i < node_ops.size() && i < gemm_ops.size(); ++i) gemm_ops[i] = node_ops[i] == "gemm";
        fallback_turns = r.budget_exhausted && gemms_bound_with_waits(prob, r.bounds, gemm_ops);
      }
    } catch (const sched::UserError& e) {
      why_not = std::string("the scheduler cannot model the loop: ") + e.what();
    }
    // 3. The settings.
    const int64_t latency = tree.machine->cost.load_latency_cycles;
    int64_t depth = ring_depth(latency, d.ii_cycles);
    note.ii_cycles = d.ii_cycles;
    note.depth_wanted = depth;
    if (d.solved) {
      note.node_ops = node_ops;
      note.node_warp.assign(r.schedule.warp.begin(), r.schedule.warp.end());
    }
    // alternate(T), multicast(S) and a written pingpong need a DMA role (teams and turns are the
    // compute role's warpgroups, shared loads the producer's): the loads keep a warp group of their
    // own whatever the schedule says, and the teams of alternate(T) already take turns on the tensor cores.
    // (kteams(T): teams sharing each tile's K loop, likewise the compute role's, likewise taking no turns.)
    const int64_t k_teams = in.kteams.value_or(1);
    const bool teams = in.alternate.value_or(1) > 1 || k_teams > 1, shared_loads = in.multicast.value_or(1) > 1;
    const bool written_pingpong = in.pingpong;  // (its turns are the compute role's: it needs one too)
    const bool forced_ws = (teams || shared_loads || written_pingpong) && !d.warp_specialize;
    if (forced_ws) d.warp_specialize = true;
    const int64_t compute_wgs = f0.warp_roles ? f0.warp_roles->compute_warpgroups : 1;
    // Without a schedule, turns by the rule when the kernel has two compute warpgroups to take them.
    const bool rule_pingpong = !d.solved && fallback_turns && compute_wgs >= 2 && !teams && !written_pingpong;
    bool pingpong = written_pingpong || (d.solved && d.compute_groups >= 2 && !teams) || rule_pingpong;
    // Turns: the loop solved again as the kernel runs it, one sub-tile team per compute warpgroup
    // (solve_subtiles); its schedule is the one the turns realize (solved below, once the back end
    // has taken the turns). Where the one-tile search ran out of its budget (the rule chose the
    // turns), it is solved here: a sub-tile schedule that takes turns is then the kernel's solved
    // schedule, its II sets the depth, its registers the split, and no rule is needed.
    SubtileTurns sub;
    const bool subtiles_wanted = compute_wgs >= 2 && !teams && !loop_graph.is_null();
    auto solve_the_subtiles = [&] {
      return solve_subtiles(loop_graph, static_cast<int>(compute_wgs), rlimit, kSubtilesWallSeconds,
                            "schedule(optimal) of instance '" + name + "': " + loop->origin);
    };
    if (rule_pingpong && subtiles_wanted) sub = solve_the_subtiles();
    const bool by_subtiles = !d.solved && sub.turns;
    if (by_subtiles) {
      d.ii_cycles = sub.ii_cycles;
      d.compute_groups = static_cast<int>(compute_wgs);
      d.load_regs = sub.load_regs;
      d.compute_regs = sub.compute_regs;
      depth = ring_depth(latency, d.ii_cycles);
      note.ii_cycles = d.ii_cycles;
      note.depth_wanted = depth;
    }
    std::string turns_why;  // why the back end refused the turns the schedule (or the rule) asked for
    std::vector<std::string> deferred;  // the mmas the back end defers one iteration (a rotated loop)
    // Teams taking the tiles in turn (alternate(T)), from the tile loop's schedule: not with teams,
    // pingpong, splitk or streamk written on the instance, nor turns within the tile.
    Teams derived;
    if (!teams && !pingpong && !in.splitk && !in.streamk && d.warp_specialize)
      derived = choose_teams(f0, *loop, *tree.machine, d.ii_cycles, compute_wgs);
    note.teams = teams ? (k_teams > 1 ? k_teams : *in.alternate) : derived.teams;
    note.tile_graphs = derived.graphs;
    note.tile_svg = derived.svg;
    const std::string rule_why = "the GEMMs bound the loop's II and ops wait on their results, so the " +
                                 std::to_string(compute_wgs) + " compute warpgroups take turns on the tensor core";
    report << "schedule(optimal) of instance '" << name << "': the loop `" << loop->origin << "` (line " << loop->loc.line << ")\n";
    if (d.solved) {
      report << "  II = " << r.schedule.ii << " (" << std::llround(d.ii_cycles) << " cycles), length " << r.schedule.length << ", "
             << r.schedule.stages() << " stage(s), " << r.groups << " warp group(s)" << (r.groups_minimal ? " (the fewest)" : "") << "\n"
             << "  optimal: " << (r.optimal ? "yes" : "not proven") << " - " << r.proof << "\n"
             << "  solve: " << std::fixed << std::setprecision(2) << r.seconds << " s (" << r.smt_calls << " SMT, " << r.ilp_calls
             << " ILP call(s), resource units " << r.rlimit_used << " of " << rlimit << ")\n";
      report << "  " << std::left << std::setw(22) << "node" << std::right << std::setw(7) << "cycle" << std::setw(7) << "stage" << std::setw(6)
             << "warp" << "\n";
      schedule_rows(report, node_names, r.schedule, "  ", 22, [&](size_t i) {
        return node_ops[i] == "tma_load" ? std::string("  (streaming load: its depth is the ring's)") : std::string();
      });
    } else {
      report << "  no schedule: " << why_not << "\n";
    }
    report << derived.report;
    // The register split per role: only for a solved schedule whose loads have a warp group of their
    // own (the compute warpgroups are the kernel's: the mapping's, as lowered provisionally, times
    // the derived teams).
    const int64_t all_wgs = compute_wgs * std::max(1, derived.teams);
    const std::optional<std::pair<int64_t, int64_t>> split =
        (d.solved || by_subtiles) && d.warp_specialize ? register_split(d, all_wgs, *tree.machine) : std::nullopt;
    // Lower with the settings, one stage less while the stages do not fit the shared-memory budget.
    std::optional<CompileError> last;
    int64_t chosen = 0;
    // (kteams(T): the depth rounded up to a multiple of T, within the ring's limit.)
    for (int64_t dd = std::min((depth + k_teams - 1) / k_teams, kMaxDepth / k_teams) * k_teams; dd >= 1 && !chosen; --dd) {
      if (dd % k_teams) continue;  // kteams(T): a ring whose slots each serve one team (kteams.cpp)
      in.schedule_optimal = false;
      in.warp_specialize = d.warp_specialize;
      in.pipeline = dd;
      in.pingpong = pingpong;
      in.regs = split;
      if (split) in.regs_loc = in.schedule_loc;
      if (derived.teams > 1) {
        in.alternate = derived.teams;
        in.alternate_loc = in.schedule_loc;
      }
      Program trial = out;
      provisional(trial);
      try {
        const ir::Function lowered = lower_to_event_ir(trial, tree);
        // splitk(S)'s partial-sum buffers come on top of the ring, added by the back end
        // (splitk.cpp, check_split_budget): a depth they do not fit with is one too deep.
        if (in.splitk.value_or(1) > 1) (void)codegen::generate_cuda(lowered, "schedule(optimal) trial");
        // Turns the compiler chose (not written) only where the back end can take them: a loop
        // that carries its first wgmma's accumulator (a hand-pipelined attention loop) keeps its
        // own overlap instead (pingpong.cpp), lowered again at the same depth without turns. With
        // turns kept, the back end's deferred mmas are the kernel's stage-1 ops (the report below).
        if (pingpong) {
          const codegen::TurnsReport turns = codegen::turns_report(lowered);
          if (turns.refused && !written_pingpong) {
            pingpong = false;
            turns_why = turns.refused->message;
            ++dd;
            continue;
          }
          deferred = turns.deferred;
        }
        chosen = dd;
      } catch (const CompileError& e) {
        const std::string& msg = e.diagnostic.message;
        if (msg.rfind("shared memory of ", 0) != 0 && msg.find("bytes of shared memory with its partial-sum buffers") == std::string::npos) throw;
        last = e;
      }
    }
    if (!chosen) throw *last;
    if (pingpong && subtiles_wanted && !rule_pingpong) sub = solve_the_subtiles();  // (turns refused realize nothing of it)
    if (pingpong) report << sub.report;
    if (sub.solved && pingpong) {
      note.subtiles = compute_wgs;
      note.subtile_turns = sub.turns;
      note.subtile_svg = sub.svg;
      note.subtile_nodes = sub.names;
      note.subtile_warp.assign(sub.schedule.warp.begin(), sub.schedule.warp.end());
    }
    const bool sub_realized = by_subtiles && pingpong;  // the sub-tile schedule is the kernel's, not the rule
    if (!d.solved && !sub_realized)  // (after the trial: the rule's turns may have been refused)
      note.warning = "schedule(optimal) on instance '" + name + "': " + why_not + "; using the rule-based settings (warpspecialize, pipeline(" +
                     std::to_string(depth) + ")" + (pingpong ? ", pingpong" : "") + ")" + (rule_pingpong && pingpong ? ": " + rule_why : "") +
                     (r.budget_exhausted && budget < Instance::kMaxScheduleBudget
                          ? " (a larger budget may find one: schedule(optimal, budget=B) with B > " + std::to_string(budget) +
                                ", about a quarter second of solver work a million)"
                          : "");
    std::ostringstream realized;
    realized << (d.warp_specialize ? "warpspecialize (the loads on a warp group of their own)" : "nowarpspecialize (loads and compute share a group)")
             << (forced_ws ? std::string(" (") + (teams ? "alternate" : shared_loads ? "multicast" : "pingpong") + " needs a DMA role)" : std::string())
             << ", pipeline(" << chosen << ") (";
    if (latency > 0 && d.ii_cycles > 0)
      realized << "ceil(" << latency << " cycles of load latency / " << std::llround(d.ii_cycles) << " per iteration) + 1 = " << depth;
    else
      realized << "no load latency model: 2";
    if (chosen < depth) realized << ", " << chosen << " fit the shared-memory budget";
    realized << ")";
    if (!turns_why.empty())
      realized << ", no pingpong (" << (rule_pingpong ? "the rule's turns" : "the turns of the schedule's " + std::to_string(d.compute_groups) + " compute warp groups")
               << " refused: " << turns_why << ")";
    else if (sub_realized)
      realized << ", pingpong (" << compute_wgs << " compute warp groups take turns; the loop's one-tile search: " << why_not << "; " << sub.why << ")";
    else if (rule_pingpong)
      realized << ", pingpong (no schedule: the rule — " << rule_why << ")";
    else if (pingpong)
      realized << (in.pingpong_double_buffer ? ", pingpong(double_buffer) (" : ", pingpong (") << (written_pingpong && !(d.solved && d.compute_groups >= 2) ? "written on the instance"
                                                                                          : std::to_string(d.compute_groups) +
                                                                                                " compute warp groups take turns")
               << (sub.why.empty() ? "" : "; " + sub.why) << ")";
    else if (teams && d.solved && d.compute_groups >= 2)
      realized << ", no pingpong (the alternate(" << *in.alternate << ") teams take turns on the tensor cores)";
    else
      realized << ", no pingpong (" << d.compute_groups << " compute warp group)";
    if (!derived.why.empty()) realized << ", " << derived.why;
    if (split)
      realized << ", regs(" << split->first << ", " << split->second << ") (the DMA warpgroup: setmaxnreg's least plus the "
               << d.load_regs << " register(s) the schedule keeps live on the load groups; the " << all_wgs
               << " compute warpgroup(s) share the rest of the block's " << register_pool(1 + all_wgs, *tree.machine)
               << " registers a thread slot; the schedule keeps at most " << d.compute_regs << " live on a compute group)";
    // The schedule's stages against the kernel's: the loads' are the ring's; of the compute ops, a
    // rotated loop's deferred mma runs one iteration late and every other op in its own iteration.
    // With the sub-tiles' turns realized, the stages are read off sub-tile 0's ops in their schedule
    // (every compute warpgroup runs the same code on its rows).
    if (d.solved || sub_realized) {
      const bool by_sub = sub.turns && pingpong;
      const std::vector<std::string>& names = by_sub ? sub.names : node_names;
      const std::vector<std::string>& ops = by_sub ? sub.ops : node_ops;
      const sched::Schedule& sc = by_sub ? sub.schedule : r.schedule;
      std::string late, other;
      for (size_t i = 0; i < names.size() && i < sc.time.size(); ++i) {
        if (ops[i] == "tma_load") continue;
        std::string node = names[i];
        if (by_sub) {
          if (node.size() < 2 || node.compare(node.size() - 2, 2, "#0") != 0) continue;  // sub-tile 0's
          node.resize(node.size() - 2);
        }
        const int stage = sc.time[i] / sc.ii;
        const std::string ev = node.substr(node.find(':') + 1);
        const int kernel = std::count(deferred.begin(), deferred.end(), ev) ? 1 : 0;
        if (stage == kernel && stage > 0) late += (late.empty() ? "" : ", ") + node;
        if (stage != kernel)
          other += (other.empty() ? "" : ", ") + node + " (scheduled in stage " + std::to_string(stage) + ", run in " +
                   std::to_string(kernel) + ")";
      }
      report << "  stages realized" << (by_sub ? " (the sub-tile schedule's)" : "") << ": the loads' by the ring (" << chosen << " deep)"
             << (late.empty() ? "" : "; " + late + " one iteration late (the loop rotated), as scheduled")
             << (other.empty() ? "; every compute op as scheduled" : "; not as scheduled: " + other) << "\n";
    }
    note.realized = realized.str();
    note.report = report.str();
    notes.push_back(std::move(note));
  }
  return out;
}

}  // namespace loom
