// Tests of validate.h: each constraint family reports its violation.
#include <gtest/gtest.h>

#include "sched/validate.h"
#include "test_util.h"

namespace loom::sched {
namespace {

bool mentions(const std::vector<std::string>& v, const std::string& what) {
  for (auto& s : v)
    if (s.find(what) != std::string::npos) return true;
  return false;
}

TEST(Validate, Fig1Schedule) {
  Problem p = test::problem_from(test::kFig1);
  Schedule s{2, 4, {0, 2, 3}, {0, 0, 0}};
  EXPECT_TRUE(validate_schedule(p, s).empty());
}

TEST(Validate, CapacityConflict) {
  Problem p = test::problem_from(test::kFig1);
  Schedule s{2, 4, {0, 1, 2}, {0, 0, 0}};  // O at 2 clashes with S modulo 2 (the document's example)
  EXPECT_TRUE(mentions(validate_schedule(p, s), "unit tc over capacity"));
}

TEST(Validate, Dependence) {
  Problem p = test::problem_from(test::kFig1);
  Schedule s{2, 4, {0, 0, 3}, {0, 0, 0}};
  EXPECT_TRUE(mentions(validate_schedule(p, s), "dependence S -> P"));
}

TEST(Validate, RegistersPerWarp) {
  Problem p = test::problem_from(test::kFig1);
  p.reg_limit = 100;
  Schedule s{2, 4, {0, 2, 3}, {0, 0, 0}};
  EXPECT_TRUE(mentions(validate_schedule(p, s), "registers/thread"));
}

TEST(Validate, CrossWarpSpillAndConcurrency) {
  Problem p = test::problem_from(test::kFig1);
  p.ops[0].spill = 2;
  Schedule s{2, 4, {0, 2, 3}, {1, 0, 0}};  // S on another warp: P needs delay 1 + 2
  auto bad = validate_schedule(p, s);
  EXPECT_TRUE(mentions(bad, "cross-warp"));
  p.ops[0].spill = 0;
  p.deps[1].blocking = true;  // O waits on P while S (same warp, slot 1 = O's slot?) executes
  Schedule s2{2, 4, {1, 2, 3}, {0, 0, 0}};
  EXPECT_TRUE(mentions(validate_schedule(p, s2), "waits (blocking)"));
}

TEST(Validate, ATeamSplitOverTwoGroups) {
  Problem p = test::problem_from(test::kFig1);
  p.ops[0].team = 0;
  p.ops[2].team = 0;
  Schedule s{2, 4, {0, 2, 3}, {0, 0, 0}};
  EXPECT_TRUE(validate_schedule(p, s).empty());
  Schedule split{2, 4, {0, 2, 3}, {1, 1, 0}};
  EXPECT_TRUE(mentions(validate_schedule(p, split), "O is on warp group 0 but its team's S on 1")) << validate_schedule(p, split).front();
}

TEST(Validate, Memory) {
  Problem p = test::problem_from(R"({"machine": {"units": {"tc": 1}, "memories": {"smem": 100}},
    "nodes": [{"name": "A", "unit": "tc", "cycles": 1, "smem": 60}, {"name": "B", "unit": "tc", "cycles": 1}],
    "edges": [{"from": "A", "to": "B", "delay": 3}]})");
  Schedule s{2, 5, {0, 3}, {0, 0}};  // two copies of A live at once: 120 > 100
  EXPECT_TRUE(mentions(validate_schedule(p, s), "smem over capacity"));
}

// A value carried across two iterations (A -> B, distances 0 and 2): in the running loop at II = 1 the
// copies of A from the last three iterations are live at once (issue at k, last use at k + 3), 300
// registers; Q alone (2 copies) would count 200. Liveness counts the earlier iterations' copies too.
inline std::string carried_two(int limit) {
  return R"({"machine": {"units": {"tc": 1, "alu": 1}, "warps": 1, "reg_limit": )" + std::to_string(limit) +
         R"(, "reg_file": 0},
    "nodes": [{"name": "A", "unit": "tc", "cycles": 1, "regs": 100}, {"name": "B", "unit": "alu", "cycles": 1}],
    "edges": [{"from": "A", "to": "B", "delay": 1}, {"from": "A", "to": "B", "delay": 1, "distance": 2}]})";
}

TEST(Validate, ValuesCarriedAcrossTwoIterationsCountEveryLiveCopy) {
  Schedule s;
  s.ii = 1;
  s.length = 2;
  s.time = {0, 1};
  s.warp = {0, 0};
  Problem tight = test::problem_from(carried_two(250));
  std::vector<std::string> errs = validate_schedule(tight, s);
  ASSERT_FALSE(errs.empty());
  EXPECT_NE(errs[0].find("needs 300 registers/thread"), std::string::npos) << errs[0];
  EXPECT_EQ(peak_pressure(tight, s).regs_per_warp.at(0), 300);
  EXPECT_TRUE(validate_schedule(test::problem_from(carried_two(300)), s).empty());
}

}  // namespace
}  // namespace loom::sched
