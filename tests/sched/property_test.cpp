// Property test (issue 5): on random small graphs (80 in `make test`, about 30 s on a 2-core machine;
// LOOM_SCHED_PROPERTY_COUNT=N for more),
//  (1) the optimal modulo ILP finds the same minimal II and minimal length as the brute-force
//      reference scheduler (brute_force.h), and its schedule passes the independent validator;
//  (2) the full Algorithm-1 search (ILP + SMT with warps, registers, memory, spills, blocking
//      synchronization) returns schedules that pass every check of the validator, with an II no
//      smaller than the modulo-only II;
//  (3) the solver's speed-ups do not change answers: for every (II, L) Algorithm 1 would query on
//      60 random graphs (II = MII .. MII+2), the lazy (CEGAR) liveness encoding, the lazy one with the ILP's schedule
//      as a hint, and the eager encoding give the same sat/unsat answer, and every sat schedule
//      passes the validator.
// The seed of every failing graph is printed; rerun one with LOOM_SCHED_SEED=<seed>.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <sstream>

#include "sched/bounds.h"
#include "sched/joint_smt.h"
#include "sched/brute_force.h"
#include "sched/modulo_ilp.h"
#include "sched/search.h"
#include "sched/validate.h"

namespace loom::sched {
namespace {

Problem random_problem(unsigned seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  Problem p;
  p.name = "random-" + std::to_string(seed);
  p.machine = "random";
  p.units = {"u0", "u1"};
  p.capacity = {pick(1, 2), pick(1, 2)};
  p.memories = {"smem"};
  p.memory_capacity = {pick(100, 300)};
  p.warps = pick(2, 3);
  p.reg_limit = pick(40, 128);
  p.reg_file = chance(0.3) ? pick(80, 200) : 0;
  const int n = pick(2, 5);
  for (int v = 0; v < n; ++v) {
    Op o;
    o.name = "n" + std::to_string(v);
    o.variable_latency = v == 0 && chance(0.3);
    o.len = pick(1, n <= 3 ? 3 : 2);
    o.rrt.assign(o.len, std::vector<int>(2, 0));
    int unit = pick(0, 1);
    for (int c = 0; c < o.len; ++c) {
      o.rrt[c][unit] = 1;
      if (chance(0.15)) o.rrt[c][1 - unit] = 1;
    }
    o.regs = chance(0.7) ? pick(0, 64) : 0;
    o.mem = {chance(0.3) ? pick(0, 100) : 0};
    o.spill = o.regs > 0 && chance(0.5) ? pick(1, 2) : 0;
    p.ops.push_back(o);
  }
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b)
      if (chance(0.45)) p.deps.push_back({a, b, pick(0, p.ops[a].len + 1), chance(0.25) ? 1 : 0, chance(0.2)});
  for (int a = 1; a < n; ++a)
    if (chance(0.2)) p.deps.push_back({a, pick(0, a - 1), pick(0, p.ops[a].len + 1), pick(1, 2), false});
  for (int a = 0; a < n; ++a)
    if (chance(0.2)) p.deps.push_back({a, a, p.ops[a].len, 1, false});
  // The first op is streaming when it has variable latency and no predecessors (section 5.3).
  bool pred = false;
  for (auto& d : p.deps) pred |= d.to == 0;
  if (p.ops[0].variable_latency && !pred) {
    p.ops[0].streaming = true;
    p.ops[0].len = 0;
    p.ops[0].rrt.clear();
    for (auto& d : p.deps)
      if (d.from == 0) d.delay = 0;
  }
  return p;
}

std::string describe(const Problem& p) {
  std::ostringstream o;
  o << "caps=" << p.capacity[0] << "," << p.capacity[1] << " warps=" << p.warps << " reg_limit=" << p.reg_limit
    << " reg_file=" << p.reg_file << " smem=" << p.memory_capacity[0] << "\n";
  for (auto& op : p.ops)
    o << "  " << op.name << " len=" << op.len << " regs=" << op.regs << " mem=" << op.mem[0] << " spill=" << op.spill
      << (op.variable_latency ? " VL" : "") << "\n";
  for (auto& d : p.deps)
    o << "  " << p.ops[d.from].name << "->" << p.ops[d.to].name << " d=" << d.delay << " dist=" << d.distance
      << (d.blocking ? " blocking" : "") << "\n";
  return o.str();
}

void check_one(unsigned seed) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun: LOOM_SCHED_SEED=" + std::to_string(seed) + ")");
  Problem p = random_problem(seed);
  SCOPED_TRACE(describe(p));
  const int mii = ii_bounds(p).mii();
  const int max_ii = mii + 8;
  auto bf = brute_force_modulo(p, max_ii);
  ASSERT_TRUE(bf.has_value()) << "brute force found no II <= " << max_ii;
  // (1) The ILP's minimal II and length equal the brute force's.
  ASSERT_LE(mii, bf->ii) << "a lower bound exceeds the true minimum";
  ModuloResult ilp;
  int ii = mii;
  for (; ii <= max_ii; ++ii) {
    ilp = optimal_modulo_schedule(p, ii, 20);
    if (ilp.status != Ilp::Status::Infeasible) break;
  }
  ASSERT_EQ(ilp.status, Ilp::Status::Optimal);
  EXPECT_EQ(ii, bf->ii) << "minimal II differs";
  EXPECT_EQ(ilp.schedule.length, bf->length) << "minimal length at that II differs";
  ValidateOptions modulo_only;
  modulo_only.check_warps = false;
  modulo_only.check_memory = false;
  for (auto& v : validate_schedule(p, ilp.schedule, modulo_only)) ADD_FAILURE() << "ILP schedule: " << v;
  for (auto& v : validate_schedule(p, *bf, modulo_only)) ADD_FAILURE() << "brute-force schedule: " << v;
  // (2) Joint search results satisfy every constraint.
  SearchOptions o;
  o.time_limit = 20;
  // Up to 4 above the modulo-only minimum: on the 80 graphs of `make test` the joint schedule's II
  // is at most 3 above it, and the same graphs find the same schedules as with a cap 10 above
  // max_ii, whose refutations of every II up to the cap took 130 of the test's 142 s.
  o.max_ii = bf->ii + 4;
  SearchResult r = search_schedule(p, o);
  if (r.found) {
    EXPECT_GE(r.schedule.ii, bf->ii);
    for (auto& v : validate_schedule(p, r.schedule)) ADD_FAILURE() << "joint schedule (II=" << r.schedule.ii << "): " << v;
  } else {
    EXPECT_FALSE(r.infeasible.empty());
  }
}

void check_encodings_agree(unsigned seed) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  Problem p = random_problem(seed);
  SCOPED_TRACE(describe(p));
  const int mii = ii_bounds(p).mii();
  for (int ii = mii; ii <= mii + 2; ++ii) {
    ModuloResult m = optimal_modulo_schedule(p, ii, 20);
    if (m.status != Ilp::Status::Optimal) continue;
    for (int L = m.schedule.length; L <= m.schedule.stages() * ii; ++L) {
      SCOPED_TRACE("II=" + std::to_string(ii) + " L=" + std::to_string(L));
      JointOptions eager, lazy, hinted;
      eager.lazy = false;
      hinted.hint = &m.schedule;
      JointResult a = solve_joint(p, ii, L, eager), b = solve_joint(p, ii, L, lazy), c = solve_joint(p, ii, L, hinted);
      ASSERT_NE(a.status, JointResult::Status::Unknown);
      EXPECT_EQ(a.status, b.status) << "lazy liveness changed the answer";
      EXPECT_EQ(a.status, c.status) << "the hint changed the answer";
      for (const JointResult* r : {&a, &b, &c})
        if (r->status == JointResult::Status::Sat) {
          EXPECT_EQ(r->schedule.length, L);
          for (auto& v : validate_schedule(p, r->schedule)) ADD_FAILURE() << v;
        }
    }
  }
}

TEST(Property, LazyLivenessAndHintAgreeWithEagerEncoding) {
  for (unsigned seed = 1; seed <= 60; ++seed) {
    check_encodings_agree(seed);
    if (HasFatalFailure()) return;
  }
}

TEST(Property, RandomSmallGraphs) {
  if (const char* one = std::getenv("LOOM_SCHED_SEED")) {
    check_one(static_cast<unsigned>(std::strtoul(one, nullptr, 10)));
    return;
  }
  int count = 0;
  if (const char* c = std::getenv("LOOM_SCHED_PROPERTY_COUNT")) count = std::atoi(c);
  if (count <= 0) count = 80;
  for (unsigned seed = 1; seed <= static_cast<unsigned>(count); ++seed) {
    check_one(seed);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace loom::sched
