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

}  // namespace
}  // namespace loom::sched
