// Tests of src/passes/schedule_graph.h: the scheduling graph of a pipelined loop, built from the
// event IR of the examples, is accepted by the scheduler (src/sched) and has the expected nodes
// and edges; the FlashAttention-2 loop gets a schedule.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <tuple>
#include <sstream>

#include "loom/check.h"
#include "loom/frontend.h"
#include "passes/pipeline.h"
#include "passes/schedule_graph.h"
#include "sched/graph.h"
#include "sched/machine.h"
#include "sched/problem.h"
#include "sched/search.h"
#include "sched/validate.h"

namespace loom {
namespace {

std::string example_text(const std::string& name) {
  std::ifstream in(std::string(LOOM_SOURCE_DIR) + "/examples/" + name + "/" + name + ".loom");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The default mapping's event IR of a program.
ir::Function lower(const std::string& text) {
  SourceManager sm;
  uint32_t file = sm.add("test.loom", text);
  DiagnosticEngine diag(sm);
  Program program = parse_program(sm, file, diag);
  std::optional<TaskTree> tree = check_program(program, diag);
  EXPECT_FALSE(diag.has_errors()) << diag.format_text(false);
  if (!tree) throw std::runtime_error("the program does not check");
  std::vector<MappingUnit> units = mapping_units(program, *tree);
  return lower_to_event_ir(units.at(0).program, units.at(0).tree);
}

struct Built {
  nlohmann::ordered_json json;
  sched::Graph graph;
  sched::Problem problem;
  std::map<std::string, std::string> op_of;  // node name -> cost-model op kind
};

Built build(const std::string& example) {
  ir::Function f = lower(example_text(example));
  std::vector<const ir::Op*> loops = pipelined_loops(f);
  EXPECT_EQ(loops.size(), 1u) << example;
  Built b;
  b.json = schedule_graph(f, *loops.at(0), hopper_machine());
  b.graph = sched::parse_graph(b.json.dump(1));  // what `loom schedule` reads
  sched::BuildOptions o;
  b.problem = sched::build_problem(b.graph, sched::builtin_machine(b.graph.machine.get<std::string>()), o);
  for (const auto& n : b.json["nodes"]) b.op_of[n["name"].get<std::string>()] = n["op"].get<std::string>();
  return b;
}

int count_op(const Built& b, const std::string& op) {
  int n = 0;
  for (const auto& [name, kind] : b.op_of) n += kind == op;
  return n;
}

// The edges between nodes of the given op kinds (name prefix before ':' = the IR op's label).
bool has_edge(const Built& b, const std::string& from_label, const std::string& to_label, int distance) {
  for (const auto& e : b.json["edges"]) {
    std::string f = e["from"], t = e["to"];
    int d = e.contains("distance") ? e["distance"].get<int>() : 0;
    if (f.rfind(from_label + ":", 0) == 0 && t.rfind(to_label + ":", 0) == 0 && d == distance) return true;
  }
  return false;
}

TEST(ScheduleGraph, GemmMainLoopIsTwoStreamingLoadsAndOneWgmmaChain) {
  Built b = build("gemm");
  EXPECT_EQ(b.problem.machine, "hopper");
  ASSERT_EQ(b.json["nodes"].size(), 3u);
  EXPECT_EQ(count_op(b, "tma_load"), 2);
  EXPECT_EQ(count_op(b, "gemm"), 1);
  // 128 x 256 block tile, K step 64 (two warpgroups of m64n256k16 wgmmas): 2,097,152 FMA = 1024 cycles.
  for (const auto& n : b.json["nodes"])
    if (n["op"] == "gemm") {
      EXPECT_EQ(n["shape"], nlohmann::ordered_json::parse("[128, 256, 64]"));
      EXPECT_EQ(n["regs"], 128);  // 64 x 256 f32 accumulators over 128 threads
    } else {
      EXPECT_TRUE(n.contains("smem"));
    }
  // The loads feed the mma in the same iteration; the accumulator chain is carried (distance 1). The
  // ring's write-after-read wait (distance 3) is not an edge: the loads stream.
  EXPECT_TRUE(has_edge(b, "tma", "mma", 0));
  EXPECT_TRUE(has_edge(b, "mma", "mma", 1));
  EXPECT_FALSE(has_edge(b, "mma", "tma", 3));
  for (const sched::Op& o : b.problem.ops) {
    if (o.variable_latency) {
      EXPECT_TRUE(o.streaming) << o.name;
    }
  }
  sched::SearchOptions so;
  so.time_limit = 30;
  sched::SearchResult r = sched::search_schedule(b.problem, so);
  ASSERT_TRUE(r.found);
  EXPECT_TRUE(r.optimal);
  EXPECT_EQ(r.schedule.ii, b.problem.ops[2].len);  // one wgmma chain per iteration: II = its length
}

TEST(ScheduleGraph, GemmReduceMainLoopIsAccepted) {
  Built b = build("gemm_reduce");
  EXPECT_EQ(count_op(b, "tma_load"), 2);
  EXPECT_EQ(count_op(b, "gemm"), 1);
  EXPECT_TRUE(has_edge(b, "mma", "mma", 1));
}

// TILES (schedule_graph.h): gemm_reduce's tile loop, the K loop one node. Its clear, the loop, the
// row sums and the conversion, the epilogue's edges out of the loop blocking, the team's next tile
// clearing its accumulators only after this tile's last reader (distance 1); with two tiles an
// iteration, copies "#0" and "#1" and the turns on the ring (a value-less node each).
TEST(ScheduleGraph, GemmReduceTileLoopHasTheLoopAsOneNodeAndTeamEdges) {
  ir::Function f = lower(example_text("gemm_reduce"));
  const ir::Op& loop = *pipelined_loops(f).at(0);
  const nlohmann::ordered_json one = tile_schedule_graph(f, loop, hopper_machine(), 1024, 1, 240);
  std::map<std::string, nlohmann::ordered_json> nodes;
  for (const auto& n : one["nodes"]) nodes[n["name"].get<std::string>().substr(0, n["name"].get<std::string>().find(':'))] = n;
  ASSERT_TRUE(nodes.count("loop") && nodes.count("fill") && nodes.count("rowsum") && nodes.count("convert")) << one.dump(1);
  EXPECT_EQ(nodes["loop"]["unit"], "tc");
  EXPECT_EQ(nodes["loop"]["cycles"], 1024);
  EXPECT_EQ(nodes["loop"]["regs"], 128);          // the 64 x 256 f32 accumulator of each of the 2 warpgroups' threads
  EXPECT_FALSE(nodes["fill"].contains("regs"));   // the same registers: counted once, on the loop
  EXPECT_EQ(one["machine"]["warps"], 1);
  EXPECT_EQ(one["machine"]["reg_limit"], 240);
  bool blocking = false, clear_after_convert = false;
  for (const auto& e : one["edges"]) {
    const std::string from = e["from"], to = e["to"];
    if (from.rfind("loop:", 0) == 0 && to.rfind("rowsum:", 0) == 0) blocking = e.value("blocking", false);
    if (from.rfind("convert:", 0) == 0 && to.rfind("fill:", 0) == 0) clear_after_convert = e.value("distance", 0) == 1;
  }
  EXPECT_TRUE(blocking) << one.dump(1);
  EXPECT_TRUE(clear_after_convert) << one.dump(1);
  const nlohmann::ordered_json two = tile_schedule_graph(f, loop, hopper_machine(), 1024, 2, 112);
  int copies = 0, turns = 0;
  for (const auto& n : two["nodes"]) {
    const std::string name = n["name"];
    copies += name.rfind("loop:", 0) == 0;
    turns += name.rfind("turn:", 0) == 0;
  }
  EXPECT_EQ(copies, 2);
  EXPECT_EQ(turns, 2);
  EXPECT_EQ(two["nodes"].size(), 2 * one["nodes"].size() + 2);
  // What `loom schedule` reads; two accumulators of 128 registers do not fit teams of 112.
  const sched::Graph g = sched::parse_graph(two.dump());
  sched::BuildOptions o;
  const sched::Problem p = sched::build_problem(g, sched::machine_from_json(two["machine"]), o);
  sched::SearchOptions so;
  so.time_limit = 30;
  EXPECT_FALSE(sched::search_schedule(p, so).found);
}

TEST(ScheduleGraph, AttentionTilesAreNotDescribedForTeams) {
  // Q is loaded once per tile outside the K loop: teams taking every other tile could not share it.
  ir::Function f = lower(example_text("flash_attention_2"));
  try {
    (void)tile_schedule_graph(f, *pipelined_loops(f).at(0), hopper_machine(), 1000, 2, 112);
    ADD_FAILURE() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(e.diagnostic.message.find("it loads a buffer once per tile outside the pipelined loop"), std::string::npos)
        << e.diagnostic.message;
  }
}

void expect_attention(const Built& b) {
  EXPECT_EQ(count_op(b, "gemm"), 2);      // S = Q K^T and O += P V, on the tensor core
  EXPECT_EQ(count_op(b, "tma_load"), 2);  // the K and V tiles
  EXPECT_GE(count_op(b, "exp"), 1);       // exp2 of the scores, on MUFU
  for (const sched::Op& o : b.problem.ops) {
    const std::string& kind = b.op_of.at(o.name);
    int tc = static_cast<int>(b.problem.units.size()), mufu = tc;
    for (size_t u = 0; u < b.problem.units.size(); ++u) {
      if (b.problem.units[u] == "tc") tc = static_cast<int>(u);
      if (b.problem.units[u] == "mufu") mufu = static_cast<int>(u);
    }
    if (kind == "gemm") {
      EXPECT_EQ(o.rrt.at(0).at(static_cast<size_t>(tc)), 1) << o.name;
    }
    if (kind == "exp") {
      EXPECT_EQ(o.rrt.at(0).at(static_cast<size_t>(mufu)), 1) << o.name;
    }
  }
  // The running statistics and the accumulator are carried: the row maximum of iteration k waits
  // for iteration k - 1 (its m, through the IR's carried event), and so does the rescaling of O.
  EXPECT_TRUE(has_edge(b, "mma", "rowmax", 1) || has_edge(b, "mma", "copy", 1));
  EXPECT_TRUE(has_edge(b, "mma", "mul", 1));
  // The second GEMM accumulates onto the rescaled O: mul(O, O, a) rewrites the accumulator between
  // the GEMMs of two iterations, so the GEMM reads the mul's version and the previous GEMM's value
  // dies at the mul (no mma -> mma data edge keeps it live across the rescale; nor mul -> mul).
  EXPECT_TRUE(has_edge(b, "mul", "mma", 0));
  EXPECT_FALSE(has_edge(b, "mma", "mma", 1));
  EXPECT_FALSE(has_edge(b, "mul", "mul", 1));
  // Scores -> probabilities -> second GEMM within an iteration.
  EXPECT_TRUE(has_edge(b, "exp2", "convert", 0));
  EXPECT_TRUE(has_edge(b, "copy", "mma", 0));
}

TEST(ScheduleGraph, FlashAttention2HasTwoGemmsExpOnMufuAndCarriedStatistics) {
  Built b = build("flash_attention_2");
  expect_attention(b);
  // The bookkeeping of the row statistics (a few values per thread) is contracted away.
  EXPECT_NE(b.json["comment"].get<std::string>().find("contracted"), std::string::npos);
  EXPECT_LE(b.json["nodes"].size(), 16u);
}

TEST(ScheduleGraph, FlashAttention3IsAccepted) {
  Built b = build("flash_attention_3");
  expect_attention(b);
}

TEST(ScheduleGraph, FlashAttention2GetsAPipelinedSchedule) {
  Built b = build("flash_attention_2");
  sched::SearchOptions so;
  so.time_limit = 60;
  sched::SearchResult r = sched::search_schedule(b.problem, so);
  ASSERT_TRUE(r.found) << r.infeasible;
  EXPECT_TRUE(r.optimal) << r.proof;
  EXPECT_TRUE(sched::validate_schedule(b.problem, r.schedule).empty());
  // The first GEMM of iteration k + 1 runs while iteration k's softmax and second GEMM do (FA3's
  // intra-warpgroup pipeline): the second GEMM is a stage later than the first.
  int s = -1, o = -1;
  for (size_t v = 0; v < b.problem.ops.size(); ++v)
    if (b.op_of.at(b.problem.ops[v].name) == "gemm") (s < 0 ? s : o) = static_cast<int>(v);
  ASSERT_GE(o, 0);
  EXPECT_GT(r.schedule.time[static_cast<size_t>(o)] / r.schedule.ii, r.schedule.time[static_cast<size_t>(s)] / r.schedule.ii);
}

TEST(ScheduleGraph, SubtilesAreOneTeamPerCopy) {
  // flash_attention_2's loop as two sub-tiles (SUBTILES): the TMA loads once, every other node twice
  // ("#0", "#1") in teams sub0 and sub1 with half its rows, a hand-off of 4 cycles a register, and
  // every edge once per copy (an edge to or from a load shared by both).
  Built b = build("flash_attention_2");
  const nlohmann::ordered_json s = subtile_schedule_graph(b.json, 2);
  const int loads = count_op(b, "tma_load"), others = static_cast<int>(b.json["nodes"].size()) - loads;
  ASSERT_GT(loads, 0);
  EXPECT_EQ(static_cast<int>(s["nodes"].size()), loads + 2 * others);
  std::map<std::string, nlohmann::ordered_json> by_name;
  for (const auto& n : s["nodes"]) by_name[n["name"].get<std::string>()] = n;
  for (const auto& n : b.json["nodes"]) {
    const std::string name = n["name"];
    if (n["op"] == "tma_load") {
      ASSERT_TRUE(by_name.count(name)) << name;
      EXPECT_FALSE(by_name[name].contains("team"));
      continue;
    }
    for (int c = 0; c < 2; ++c) {
      const std::string copy = name + "#" + std::to_string(c);
      ASSERT_TRUE(by_name.count(copy)) << copy;
      const auto& m = by_name[copy];
      EXPECT_EQ(m["team"], "sub" + std::to_string(c));
      EXPECT_EQ(m["shape"][0].get<int64_t>(), (n["shape"][0].get<int64_t>() + 1) / 2) << copy;
      if (n.contains("regs") && n["op"] != "copy") EXPECT_EQ(m["spill_cost"].get<int64_t>(), 4 * n["regs"].get<int64_t>());
    }
  }
  std::set<std::tuple<std::string, std::string, int>> edges;
  for (const auto& e : s["edges"]) edges.insert({e["from"], e["to"], e.contains("distance") ? e["distance"].get<int>() : 0});
  for (const auto& e : b.json["edges"])
    for (int c = 0; c < 2; ++c) {
      auto end = [&](const std::string& x) { return b.op_of.at(x) == "tma_load" ? x : x + "#" + std::to_string(c); };
      EXPECT_TRUE(edges.count({end(e["from"]), end(e["to"]), e.contains("distance") ? e["distance"].get<int>() : 0})) << e.dump();
    }
  // What `loom schedule` reads: each copy's ops name its team's first op.
  sched::Problem p = sched::build_problem(sched::parse_graph(s.dump(1)), sched::builtin_machine("hopper"), sched::BuildOptions{});
  std::set<int> teams;
  for (const sched::Op& o : p.ops)
    if (o.team >= 0) teams.insert(o.team);
  EXPECT_EQ(teams.size(), 2u);
}

TEST(ScheduleGraph, SubtilesSolveIntoTurns) {
  // flash_attention_2's loop (D = 128) as two sub-tile teams: the modulo ILP's incumbent is the first
  // team's schedule shifted for the second (the list schedules find none: the softmax recurrence at
  // II = RecMII leaves them no slack), the ILP proves its length, and each sub-tile takes a warp group
  // of its own: FA3's two consumer warpgroups in turns (bench/results/2026-12-06-cpu-teams-ilp.md).
  Built b = build("flash_attention_2");
  sched::BuildOptions bo;
  bo.norm_budget = 100;  // the compiler's normalization (schedule(optimal)), as `loom schedule --norm-budget 100`
  sched::Problem p =
      sched::build_problem(sched::parse_graph(subtile_schedule_graph(b.json, 2).dump(1)), sched::builtin_machine("hopper"), bo);
  sched::SearchOptions so;
  so.time_limit = 60;
  sched::SearchResult r = sched::search_schedule(p, so);
  ASSERT_TRUE(r.found) << r.infeasible;
  EXPECT_TRUE(r.optimal) << r.proof;
  EXPECT_TRUE(sched::validate_schedule(p, r.schedule).empty());
  bool shifted = false;
  for (const sched::SearchStep& st : r.steps) shifted |= st.result.find("the first team's schedule shifted for the others") != std::string::npos;
  EXPECT_TRUE(shifted);
  std::map<int, std::set<int>> groups;  // team -> its ops' warp groups
  for (size_t v = 0; v < p.ops.size(); ++v)
    if (p.ops[v].team >= 0) groups[p.ops[v].team].insert(r.schedule.warp[v]);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups.begin()->second.size(), 1u);
  EXPECT_EQ(groups.rbegin()->second.size(), 1u);
  EXPECT_NE(*groups.begin()->second.begin(), *groups.rbegin()->second.begin());
}

TEST(ScheduleGraph, MachinesWithoutASchedulerModelAreRefused) {
  ir::Function f = lower(example_text("gemm"));
  std::vector<const ir::Op*> loops = pipelined_loops(f);
  ASSERT_EQ(loops.size(), 1u);
  try {
    schedule_graph(f, *loops[0], ampere_machine());
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(e.diagnostic.message.find("cannot describe this loop for the scheduler: it has no model of the machine"),
              std::string::npos)
        << e.diagnostic.message;
    EXPECT_GT(e.diagnostic.loc.line, 0u);
  }
}

}  // namespace
}  // namespace loom
