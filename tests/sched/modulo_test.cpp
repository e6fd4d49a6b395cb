// Tests of modulo_ilp.h (and ilp.h through it).
#include <gtest/gtest.h>

#include "sched/modulo_ilp.h"
#include "sched/validate.h"
#include "test_util.h"

namespace loom::sched {
namespace {

TEST(ModuloIlp, Fig1NeedsIIOfTwo) {
  Problem p = test::problem_from(test::kFig1);
  EXPECT_EQ(optimal_modulo_schedule(p, 1, 10).status, Ilp::Status::Infeasible);
  ModuloResult r = optimal_modulo_schedule(p, 2, 10);
  ASSERT_EQ(r.status, Ilp::Status::Optimal);
  EXPECT_EQ(r.schedule.length, 4);  // Fig. 1(d): I = 2, L = 4
  EXPECT_EQ(r.schedule.time[0], 0);
  ValidateOptions vo;
  vo.check_warps = false;
  EXPECT_TRUE(validate_schedule(p, r.schedule, vo).empty());
}

TEST(ModuloIlp, MultiCycleReservationsWrap) {
  // One op holding the unit for 3 cycles and another for 2: II >= 5.
  Problem p = test::problem_from(R"({"nodes": [{"name": "A", "unit": "tc", "cycles": 3}, {"name": "B", "unit": "tc", "cycles": 2}],
    "edges": [{"from": "A", "to": "B"}]})");
  EXPECT_EQ(optimal_modulo_schedule(p, 4, 10).status, Ilp::Status::Infeasible);
  ModuloResult r = optimal_modulo_schedule(p, 5, 10);
  ASSERT_EQ(r.status, Ilp::Status::Optimal);
  EXPECT_EQ(r.schedule.length, 5);
}

TEST(ModuloIlp, ATeamsWaiterDoesNotIssueUnderItsTeamsOps) {
  // G -> X waits on a blocking dependence; Y runs 8 cycles on the ALU, apart. Alone, II = 8 (the
  // ALU) with X issued while Y executes. As one team (one warp group), X may not issue while Y
  // executes (joint_smt.cpp's concurrency rule, which the team makes unconditional): at II = 8 Y
  // executes on every slot, so there is no schedule; at II = 9 X issues in the slot Y leaves.
  const std::string graph = R"({"machine": {"units": {"tc": 1, "mufu": 1, "alu": 1}, "warps": 3},
    "nodes": [{"name": "G", "unit": "tc", "cycles": 4 TEAM}, {"name": "X", "unit": "mufu", "cycles": 4 TEAM},
              {"name": "Y", "unit": "alu", "cycles": 8 TEAM}],
    "edges": [{"from": "G", "to": "X", "delay": 4, "blocking": true}]})";
  auto with_team = [&](const std::string& team) {
    std::string g = graph;
    for (size_t at = g.find(" TEAM"); at != std::string::npos; at = g.find(" TEAM")) g.replace(at, 5, team);
    return test::problem_from(g);
  };
  Problem apart = with_team("");
  ModuloResult r = optimal_modulo_schedule(apart, 8, 10);
  ASSERT_EQ(r.status, Ilp::Status::Optimal);
  EXPECT_EQ(r.schedule.length, 8);
  Problem team = with_team(R"(, "team": "t")");
  EXPECT_EQ(optimal_modulo_schedule(team, 8, 10).status, Ilp::Status::Infeasible);
  r = optimal_modulo_schedule(team, 9, 10);
  ASSERT_EQ(r.status, Ilp::Status::Optimal);
  const int x = r.schedule.time[1], y = r.schedule.time[2];
  EXPECT_EQ(((x - y) % 9 + 9) % 9, 8) << "X at " << x << ", Y at " << y;  // the one slot Y does not execute on
  ValidateOptions vo;
  vo.check_warps = false;
  EXPECT_TRUE(validate_schedule(team, r.schedule, vo).empty());
}

}  // namespace
}  // namespace loom::sched
