// Tests of graph.h, machine.h, problem.h, costnorm.h and bounds.h.
#include <gtest/gtest.h>

#include "sched/bounds.h"
#include "sched/costnorm.h"
#include "test_util.h"

namespace loom::sched {
namespace {

using test::problem_from;

TEST(Graph, ParsesFig1) {
  Problem p = problem_from(test::kFig1);
  ASSERT_EQ(p.ops.size(), 3u);
  EXPECT_EQ(p.ops[0].len, 1);
  EXPECT_EQ(p.deps[2].distance, 1);
}

TEST(Graph, SyntaxErrorHasLineAndColumn) {
  try {
    parse_graph("{\n  \"nodes\": [\n    {\"name\": \"A\",, }\n  ]\n}");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(e.pos.line, 3);
    EXPECT_GT(e.pos.col, 1);
    EXPECT_NE(std::string(e.what()).find("invalid JSON"), std::string::npos);
  }
}

TEST(Graph, UnknownNodeInEdgeIsLocated) {
  try {
    parse_graph(R"({"nodes": [{"name": "A", "unit": "tc", "cycles": 1}],
"edges": [{"from": "A", "to": "B"}]})");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(e.pos.line, 2);
    EXPECT_NE(std::string(e.what()).find("unknown node 'B'"), std::string::npos);
  }
}

TEST(Graph, RejectsBadFields) {
  EXPECT_THROW(parse_graph(R"({"nodes": [{"name": "A", "unit": "tc", "cycles": -1}]})"), UserError);
  EXPECT_THROW(parse_graph(R"({"nodes": [{"name": "A", "unit": "tc", "cycles": 1, "colour": 2}]})"), UserError);
  EXPECT_THROW(parse_graph(R"({"nodes": [{"name": "A"}]})"), UserError);
  EXPECT_THROW(parse_graph(R"({"nodes": []})"), UserError);
  EXPECT_THROW(parse_graph(R"([1, 2])"), UserError);
  EXPECT_THROW(parse_graph(R"({"nodes": [{"name": "A", "unit": "tc", "cycles": 1, "team": ""}]})"), UserError);
  EXPECT_THROW(parse_graph(R"({"nodes": [{"name": "A", "unit": "tc", "cycles": 1, "team": 1}]})"), UserError);
  EXPECT_THROW(parse_graph(R"({"nodes": [{"name": "A", "unit": "tc", "cycles": 1}, {"name": "A", "unit": "tc", "cycles": 1}]})"),
               UserError);
}

TEST(Graph, ZeroDistanceCycleIsAnError) {
  EXPECT_THROW(problem_from(R"({"nodes": [{"name": "A", "unit": "tc", "cycles": 1}, {"name": "B", "unit": "tc", "cycles": 1}],
    "edges": [{"from": "A", "to": "B"}, {"from": "B", "to": "A"}]})"),
               UserError);
}

TEST(Graph, UnknownUnitAndMachine) {
  EXPECT_THROW(problem_from(R"({"nodes": [{"name": "A", "unit": "fpu", "cycles": 1}]})"), UserError);
  EXPECT_THROW(builtin_machine("volta"), UserError);
}

TEST(Graph, ATeamCannotMixVariableAndFixedLatency) {
  try {
    problem_from(R"({"machine": {"units": {"tc": 1, "tma": 1}, "warps": 2, "memories": {"smem": 1000}},
      "nodes": [{"name": "L", "unit": "tma", "cycles": 4, "variable_latency": true, "smem": 100, "team": "t"},
                {"name": "G", "unit": "tc", "cycles": 1, "team": "t"}],
      "edges": [{"from": "L", "to": "G"}]})");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("nodes 'L' and 'G' are both in team 't', but 'L' has variable latency"), std::string::npos)
        << e.what();
  }
}

TEST(Graph, RrtAndOpCosts) {
  Problem p = problem_from(R"({"nodes": [{"name": "A", "rrt": [{"tc": 1}, {"tc": 1, "alu": 1}]},
     {"name": "G", "op": "gemm", "shape": [128, 128, 128]}, {"name": "E", "op": "exp", "shape": [128, 128]}]})");
  EXPECT_EQ(p.ops[0].len, 2);
  EXPECT_EQ(p.ops[1].len, 1024);  // Hopper: 128^3 / 2048
  EXPECT_EQ(p.ops[2].len, 1024);  // 128^2 / 16
}

TEST(Machine, BlackwellTensorCoreIsFaster) {
  Machine h = builtin_machine("hopper"), b = builtin_machine("blackwell");
  EXPECT_EQ(b.ops.at("gemm").per_clock, 2 * h.ops.at("gemm").per_clock);
  EXPECT_TRUE(b.ops.at("tmem_load").blocking_consumers);
}

TEST(Machine, FromJson) {
  Machine m = machine_from_json(nlohmann::json::parse(R"({"base": "hopper", "units": {"tc": 2}, "warps": 3})"));
  EXPECT_EQ(m.units[m.unit_index("tc")].capacity, 2);
  EXPECT_EQ(m.warps, 3);
  EXPECT_THROW(machine_from_json(nlohmann::json::parse(R"({"units": {"tc": -1}})")), UserError);
}

TEST(CostNorm, ExactRatiosInLowestTerms) {
  CostNormalization n = normalize_costs({1024, 1024, 64, 512}, 300, 10);
  EXPECT_EQ(n.map(1024), 16);
  EXPECT_EQ(n.map(512), 8);
  EXPECT_EQ(n.map(64), 1);
  EXPECT_EQ(n.F, 0);
  EXPECT_TRUE(n.proven_optimal);
}

TEST(CostNorm, BudgetTradesResolution) {
  // 1000:1024 cannot be kept exactly within U = 20: the ILP picks the closest ratio it can.
  CostNormalization n = normalize_costs({1000, 1024}, 20, 10);
  EXPECT_LE(n.map(1000) + n.map(1024), 20);
  EXPECT_EQ(n.map(1000), n.map(1024));
}

TEST(Bounds, Fig1) {
  IIBounds b = ii_bounds(problem_from(test::kFig1));
  EXPECT_EQ(b.res_mii, 2);
  EXPECT_EQ(b.res_unit, "tc");
  EXPECT_EQ(b.rec_mii, 1);
}

TEST(Bounds, RecurrenceDominates) {
  Problem p = problem_from(R"({"nodes": [{"name": "A", "unit": "tc", "cycles": 1}, {"name": "B", "unit": "alu", "cycles": 1}],
    "edges": [{"from": "A", "to": "B", "delay": 3}, {"from": "B", "to": "A", "delay": 4, "distance": 2}]})");
  IIBounds b = ii_bounds(p);
  EXPECT_EQ(b.rec_mii, 4);  // ceil(7 / 2)
  EXPECT_NE(b.rec_cycle.find("A"), std::string::npos);
}

}  // namespace
}  // namespace loom::sched
