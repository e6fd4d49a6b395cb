// schedule(optimal) (issue 12, part 2; src/passes/schedule_optimal.h, docs/schedule.md "In the
// compiler"): the clause parses and prints; the compiler solves the instance's loop with src/sched
// and lowers it with the settings read off the schedule; on the examples those are the settings
// their hand mappings give (GEMM: warpspecialize pipeline(3) at 128 x 256 tiles, pipeline(4) at
// 128 x 128; FlashAttention-2: warpspecialize pipeline(2) pingpong, FA3's structure) plus the
// register split the schedule gives (regs(24, 240): the load groups hold no register values), and
// the lowered IR is the hand mapping's with that split, op for op; the note records the schedule
// and the settings; the scheduled program runs on the CPU executor against the reference (the CLI,
// as a user runs it). The checker's errors are tests/errors/schedule_*.loom and regs_*.loom.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>

#include "codegen_util.h"
#include "loom/machine.h"
#include "passes/schedule_graph.h"
#include "passes/warp_specialize.h"

namespace loom {
namespace {

using test::check_text;
using test::example_text;
using test::replaced;

// The default mapping only (no specializations).
std::string default_only(const std::string& text, const std::string& cut) { return text.substr(0, text.find(cut)); }

// The default mapping's IR, and its schedule notes.
ir::Function lower(const std::string& text, const std::string& name) {
  auto r = check_text(text, name + ".loom");
  EXPECT_TRUE(r.ok && r.tree.has_value()) << r.diagnostics;
  if (!r.ok || !r.tree) return {};
  return lower_to_event_ir(r.program, *r.tree);
}

TEST(ScheduleOptimal, ParsesAndPrints) {
  const std::string text =
      replaced(default_only(example_text("gemm"), "// Other tile shapes"), "warpspecialize pipeline(3)", "schedule(optimal)");
  auto r = check_text(text, "gemm.loom");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(format_program(r.program).find("copy: copy_tile) schedule(optimal)"), std::string::npos) << format_program(r.program);
  // With a budget: kept on the instance, printed back as written.
  auto b = check_text(replaced(text, "schedule(optimal)", "schedule(optimal, budget=12)"), "gemm.loom");
  ASSERT_TRUE(b.ok) << b.diagnostics;
  EXPECT_NE(format_program(b.program).find("copy: copy_tile) schedule(optimal, budget=12)"), std::string::npos) << format_program(b.program);
}

TEST(ScheduleOptimal, GemmGetsItsHandMapping) {
  const std::string base = default_only(example_text("gemm"), "// Other tile shapes");
  const std::string hand = replaced(base, "warpspecialize pipeline(3)", "warpspecialize pipeline(3) regs(24, 240)");
  const std::string solved = replaced(base, "warpspecialize pipeline(3)", "schedule(optimal)");
  ir::Function h = lower(hand, "gemm"), s = lower(solved, "gemm");
  EXPECT_EQ(ir::print(s), ir::print(h));
  ASSERT_EQ(s.schedule_notes.size(), 1u);
  const ir::ScheduleNote& n = s.schedule_notes[0];
  EXPECT_EQ(n.instance, "gemm_block");
  EXPECT_TRUE(n.warning.empty()) << n.warning;
  EXPECT_NE(n.report.find("optimal: yes"), std::string::npos) << n.report;
  EXPECT_NE(n.report.find("1024 cycles"), std::string::npos) << n.report;
  EXPECT_NE(n.report.find("stages realized: the loads' by the ring (3 deep); every compute op as scheduled"), std::string::npos) << n.report;
  EXPECT_NE(n.realized.find("warpspecialize (the loads on a warp group of their own), pipeline(3) (ceil(1500 cycles of load latency / 1024 "
                            "per iteration) + 1 = 3), no pingpong"),
            std::string::npos)
      << n.realized;
  // The register split: the loads keep no register values, so the DMA warpgroup gets setmaxnreg's
  // least and the two compute warpgroups share the rest of the 3 x 168 registers a thread slot.
  EXPECT_NE(n.realized.find("regs(24, 240) (the DMA warpgroup: setmaxnreg's least plus the 0 register(s) the schedule keeps live on "
                            "the load groups; the 2 compute warpgroup(s) share the rest of the block's 504 registers a thread slot"),
            std::string::npos)
      << n.realized;
  ASSERT_TRUE(s.warp_roles.has_value());
  EXPECT_EQ(s.warp_roles->dma_regs, 24);
  EXPECT_EQ(s.warp_roles->compute_regs, 240);
}

TEST(ScheduleOptimal, SmallerTilesGetADeeperRing) {
  // 128 x 128 tiles: half the tensor-core work per K step, so four stages cover the load latency
  // (examples/gemm's 128 x 128 candidate is written pipeline(4)). Two teams of the tile's two
  // warpgroups would make five warpgroups, 96 registers a thread at launch: less the 36 the schedule
  // does not model, 60, fewer than the 64 accumulators a thread holds, so one team.
  std::string hand = default_only(example_text("gemm"), "// Other tile shapes");
  hand = replaced(hand, "tune(U=128, V=256)", "tune(U=128, V=128)");
  for (int i = 0; i < 6; ++i) hand = replaced(hand, "N_MMA=256", "N_MMA=128");
  hand = replaced(hand, "warpspecialize pipeline(3)", "warpspecialize pipeline(4) regs(24, 240)");
  const std::string solved = replaced(hand, "warpspecialize pipeline(4) regs(24, 240)", "schedule(optimal)");
  ir::Function h = lower(hand, "gemm"), s = lower(solved, "gemm");
  EXPECT_EQ(ir::print(s), ir::print(h));
  ASSERT_EQ(s.schedule_notes.size(), 1u);
  const ir::ScheduleNote& n = s.schedule_notes[0];
  EXPECT_NE(n.realized.find("pipeline(4) (ceil(1500 cycles of load latency / 512 per iteration) + 1 = 4)"), std::string::npos) << n.realized;
  EXPECT_EQ(n.teams, 1);
  ASSERT_EQ(n.tile_graphs.size(), 2u);  // one team and two; three would be more than 4 compute warpgroups
  EXPECT_NE(n.report.find("2 team(s) of 2 warpgroup(s), 60 registers a thread for its values (of 96): no schedule (node 'loop:"),
            std::string::npos)
      << n.report;
}

TEST(ScheduleOptimal, RowSumsGetTeamsWhereTheRegistersAllowThem) {
  // gemm_reduce (issue 12: "overlaps the row reduction with the next tile's wgmma"). With one
  // warpgroup a 128 x 128 tile (128 accumulator registers and 4 row sums a thread), two teams fit
  // (three warpgroups: 168 registers a thread at launch, 132 for the schedule's values) and the
  // schedule puts one tile's row sums, atomics and stores under the other's K loop: the hand
  // ping-pong mapping's alternate(2), op for op. The default 128 x 256 tile on two warpgroups keeps
  // one team: two teams would be five warpgroups, 60 registers a thread for the 128 accumulators.
  std::string base = default_only(example_text("gemm_reduce"), "// Smaller tiles");
  std::string one = replaced(base, "tune(U=128, V=256) call(gemm_reduce_tile", "tune(U=128, V=128) call(gemm_reduce_tile");
  for (int i = 0; i < 4; ++i) one = replaced(one, "tune(G=2)", "tune(G=1)");
  for (int i = 0; i < 8; ++i) one = replaced(one, "tune(N_MMA=256)", "tune(N_MMA=128)");
  const std::string hand = replaced(one, "warpspecialize pipeline(3)", "warpspecialize pipeline(4) alternate(2) regs(24, 240)");
  const std::string solved = replaced(one, "warpspecialize pipeline(3)", "schedule(optimal)");
  ir::Function h = lower(hand, "gemm_reduce"), s = lower(solved, "gemm_reduce");
  EXPECT_EQ(ir::print(s), ir::print(h));
  ASSERT_EQ(s.schedule_notes.size(), 1u);
  EXPECT_EQ(s.schedule_notes[0].teams, 2) << s.schedule_notes[0].report;
  EXPECT_NE(s.schedule_notes[0].report.find("rowsum:"), std::string::npos) << s.schedule_notes[0].report;
  // The default mapping: one team, and the report says why two do not fit.
  ir::Function d = lower(replaced(base, "warpspecialize pipeline(3)", "schedule(optimal)"), "gemm_reduce");
  ASSERT_EQ(d.schedule_notes.size(), 1u);
  const ir::ScheduleNote& n = d.schedule_notes[0];
  EXPECT_EQ(n.teams, 1);
  EXPECT_NE(n.report.find("2 team(s) of 2 warpgroup(s), 60 registers a thread for its values (of 96): no schedule (node 'loop:"),
            std::string::npos)
      << n.report;
  EXPECT_NE(n.report.find("needs 128 registers/thread while live"), std::string::npos) << n.report;
  EXPECT_NE(n.realized.find("one team (the tile loop's schedule: more teams that fit the registers are not faster a tile)"), std::string::npos) << n.realized;
  for (const ir::Op* L : pipelined_loops(d)) EXPECT_EQ(L->alternate, 1);
  // The CLI prints the tile loop's graph solved for T teams (what `loom schedule` reads).
  const std::string file = testing::TempDir() + "schedule_optimal_teams.loom";
  std::ofstream(file) << solved;
  test::Cli two = test::run_loom("compile " + file + " --emit=schedule-graph --tiles=2", "");
  EXPECT_EQ(two.status, 0) << two.err;
  EXPECT_NE(two.out.find("\"name\": \"gr_host:tilesx2\""), std::string::npos) << two.out;
  EXPECT_NE(two.out.find("\"turn:"), std::string::npos) << two.out;
  test::Cli four = test::run_loom("compile " + file + " --emit=schedule-graph --tiles=4", "");
  EXPECT_NE(four.status, 0);
  EXPECT_NE(four.err.find("has no tile-loop graph with 4 tile(s) an iteration"), std::string::npos) << four.err;
  test::Cli bad = test::run_loom("compile " + file + " --emit=schedule-graph --tiles=9", "");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("--tiles needs a number of tiles from 1 to 4, found '9'"), std::string::npos) << bad.err;
  // --svg draws the K loop's schedule and the chosen teams' tile schedule (two pictures: FILE's stem
  // + "-mapping0-INSTANCE" and + "-tiles"), the latter with both teams' loops on the tensor core.
  EXPECT_NE(s.schedule_notes[0].tile_svg.find("<svg"), std::string::npos);
  EXPECT_TRUE(n.tile_svg.empty());
  const std::string svg = testing::TempDir() + "schedule_optimal_teams.svg";
  test::Cli draw = test::run_loom("compile " + file + " --emit=schedule --svg " + svg, "");
  EXPECT_EQ(draw.status, 0) << draw.err;
  const std::string stem = testing::TempDir() + "schedule_optimal_teams-mapping0-gr_block";
  EXPECT_NE(draw.out.find("// wrote " + stem + ".svg"), std::string::npos) << draw.out;
  EXPECT_NE(draw.out.find("// wrote " + stem + "-tiles.svg"), std::string::npos) << draw.out;
  const std::string tiles = test::read_file(stem + "-tiles.svg");
  EXPECT_NE(tiles.find("on 2 teams (2 tiles an iteration)"), std::string::npos) << tiles;
  EXPECT_NE(tiles.find("loop:e.2#0"), std::string::npos) << tiles;
  EXPECT_NE(tiles.find("loop:e.2#1"), std::string::npos) << tiles;
  std::filesystem::remove(stem + ".svg");
  std::filesystem::remove(stem + "-tiles.svg");
  std::filesystem::remove(file);
}

TEST(ScheduleOptimal, AttentionKeepsOneTeam) {
  // FlashAttention's tile loads Q once per tile, outside its K loop: teams that take every other
  // tile cannot share that buffer, so the tile loop is not scheduled for teams (and its K loop's
  // compute groups already take turns within the tile).
  const std::string base = default_only(example_text("flash_attention_2"), "mapping sm_90a when(D <= 64)");
  ir::Function s = lower(replaced(base, "warpspecialize pipeline(2) pingpong", "schedule(optimal)"), "flash_attention_2");
  ASSERT_EQ(s.schedule_notes.size(), 1u);
  EXPECT_EQ(s.schedule_notes[0].teams, 1);
  EXPECT_TRUE(s.schedule_notes[0].tile_graphs.empty());
}

TEST(ScheduleOptimal, TeamsKeepTheirDmaRoleAndTakeTheTurns) {
  // gemm_reduce's ping-pong mapping (one warpgroup a 128 x 128 tile, alternate(2)): the teams are
  // the compute role's warpgroups, so the loads keep a group of their own, and the teams already
  // take turns on the tensor cores, so no pingpong is added: the hand mapping's settings.
  std::string hand = default_only(example_text("gemm_reduce"), "// Smaller tiles");
  hand = replaced(hand, "tune(U=128, V=256) call(gemm_reduce_tile", "tune(U=128, V=128) call(gemm_reduce_tile");
  for (int i = 0; i < 4; ++i) hand = replaced(hand, "tune(G=2)", "tune(G=1)");
  for (int i = 0; i < 8; ++i) hand = replaced(hand, "tune(N_MMA=256)", "tune(N_MMA=128)");
  hand = replaced(hand, "warpspecialize pipeline(3) smem(227KB);", "warpspecialize pipeline(4) alternate(2) regs(24, 240) smem(227KB);");
  const std::string solved = replaced(hand, "warpspecialize pipeline(4) alternate(2) regs(24, 240)", "schedule(optimal) alternate(2)");
  ir::Function h = lower(hand, "gemm_reduce"), s = lower(solved, "gemm_reduce");
  EXPECT_EQ(ir::print(s), ir::print(h));
  ASSERT_EQ(s.schedule_notes.size(), 1u);
  const ir::ScheduleNote& n = s.schedule_notes[0];
  EXPECT_TRUE(n.warning.empty()) << n.warning;
  EXPECT_EQ(n.realized.find("warpspecialize"), 0u) << n.realized;
  EXPECT_NE(n.realized.find("pipeline(4)"), std::string::npos) << n.realized;
  EXPECT_EQ(n.realized.find(", pingpong"), std::string::npos) << n.realized;
}

TEST(ScheduleOptimal, FlashAttentionGetsTheFa3Structure) {
  // FlashAttention-2's plain loop: the solver puts the loads on a group of their own and the
  // compute on two groups, which the back end realizes as two consumer warpgroups taking turns,
  // the loop rotated (the next tile's QK^T before this tile's P V): the hand mapping's
  // `warpspecialize pipeline(2) pingpong`, with FlashAttention-3's register split, 24 / 240.
  const std::string base = default_only(example_text("flash_attention_2"), "mapping sm_90a when(D <= 64)");
  const std::string hand = replaced(base, "warpspecialize pipeline(2) pingpong", "warpspecialize pipeline(2) pingpong regs(24, 240)");
  const std::string solved = replaced(base, "warpspecialize pipeline(2) pingpong", "schedule(optimal)");
  ir::Function h = lower(hand, "flash_attention_2"), s = lower(solved, "flash_attention_2");
  EXPECT_EQ(ir::print(s), ir::print(h));
  ASSERT_EQ(s.schedule_notes.size(), 1u);
  const ir::ScheduleNote& n = s.schedule_notes[0];
  EXPECT_TRUE(n.warning.empty()) << n.warning;
  EXPECT_NE(n.realized.find("warpspecialize"), std::string::npos) << n.realized;
  EXPECT_NE(n.realized.find("pipeline(2)"), std::string::npos) << n.realized;
  EXPECT_NE(n.realized.find("pingpong (2 compute warp groups take turns; the sub-tile schedule's turns: each of the 2 sub-tiles on "
                            "a warp group of its own, one turn each on the tensor core, proven optimal)"),
            std::string::npos)
      << n.report << n.realized;
  // The turns' own schedule: the loop as two sub-tile teams (solve_subtiles), each on a warp group
  // of its own, the loads on a third, and on the tensor core each sub-tile's next QK^T and this
  // tile's P V one turn (FlashAttention-3's ping-pong).
  EXPECT_EQ(n.subtiles, 2);
  EXPECT_TRUE(n.subtile_turns) << n.report;
  ASSERT_EQ(n.subtile_nodes.size(), n.subtile_warp.size());
  std::map<std::string, std::set<int>> groups;  // "#0", "#1", "" (the loads) -> warp groups
  for (size_t i = 0; i < n.subtile_nodes.size(); ++i) {
    const size_t hash = n.subtile_nodes[i].rfind('#');
    groups[hash == std::string::npos ? "" : n.subtile_nodes[i].substr(hash)].insert(n.subtile_warp[i]);
  }
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups["#0"].size(), 1u);
  EXPECT_EQ(groups["#1"].size(), 1u);
  EXPECT_NE(*groups["#0"].begin(), *groups["#1"].begin());
  for (int g : groups[""]) EXPECT_TRUE(g != *groups["#0"].begin() && g != *groups["#1"].begin());
  EXPECT_NE(n.report.find("the tensor core an II, in slot order: mma:e.9#0 (stage 0), mma:e.37#0 (stage 1) | mma:e.9#1 (stage 0), "
                          "mma:e.37#1 (stage 1)"),
            std::string::npos)
      << n.report;
  EXPECT_FALSE(n.subtile_svg.empty());
  // The report sets the kernel's stages against the sub-tile schedule's: P V one iteration late
  // as scheduled; the softmax's tail (row sum, conversion, pack of P) in its own iteration, not in
  // the schedule's stage 1 (that would need a second register copy of the scores: docs/schedule.md).
  EXPECT_NE(n.report.find("stages realized (the sub-tile schedule's): the loads' by the ring (2 deep); mma:"), std::string::npos) << n.report;
  EXPECT_NE(n.report.find(" one iteration late (the loop rotated), as scheduled; not as scheduled: rowsum:"), std::string::npos) << n.report;
  EXPECT_NE(n.report.find("(scheduled in stage 1, run in 0)"), std::string::npos) << n.report;
}

TEST(ScheduleOptimal, AHandPipelinedAttentionLoopKeepsItsOwnOverlap) {
  // examples/flash_attention_3's loop carries its scores (the next tile's QK^T issued before this
  // tile's softmax, by hand). The solver puts its compute on two warp groups, but the back end
  // cannot give them turns on that loop (pingpong.cpp); schedule(optimal) asks it before it
  // realizes turns and keeps the loop's own overlap: the hand mapping's `warpspecialize
  // pipeline(2)` with the schedule's register split, op for op, and the kernel compiles (it used
  // to stop with the back end's "cannot lower `pingpong`", which the user had not written).
  const std::string base = default_only(example_text("flash_attention_3"), "mapping sm_90a when(D <= 64)");
  const std::string hand = replaced(base, "warpspecialize pipeline(2) smem", "warpspecialize pipeline(2) regs(24, 240) smem");
  const std::string solved = replaced(base, "warpspecialize pipeline(2) smem", "schedule(optimal) smem");
  ir::Function h = lower(hand, "flash_attention_3"), s = lower(solved, "flash_attention_3");
  EXPECT_EQ(ir::print(s), ir::print(h));
  ASSERT_EQ(s.schedule_notes.size(), 1u);
  const ir::ScheduleNote& n = s.schedule_notes[0];
  EXPECT_TRUE(n.warning.empty()) << n.warning;
  EXPECT_NE(n.report.find("optimal: yes"), std::string::npos) << n.report;
  EXPECT_NE(n.realized.find("no pingpong (the turns of the schedule's 2 compute warp groups refused: the CUDA back end cannot lower "
                            "`pingpong` on a loop whose first wgmma"),
            std::string::npos)
      << n.realized;
  EXPECT_FALSE(codegen::turns_report(s).refused.has_value());
  EXPECT_NO_THROW((void)codegen::generate_cuda(s, "flash_attention_3.loom"));
  // The same loop with `pingpong` written by hand is still the back end's located refusal.
  ir::Function w = lower(replaced(base, "warpspecialize pipeline(2) smem", "warpspecialize pipeline(2) pingpong smem"), "flash_attention_3");
  const std::optional<Diagnostic> why = codegen::turns_report(w).refused;
  ASSERT_TRUE(why.has_value());
  EXPECT_GT(why->loc.line, 0u);
  EXPECT_NE(why->message.find("cannot lower `pingpong`"), std::string::npos) << why->message;
}

TEST(ScheduleOptimal, AWrittenPingpongIsKeptWithItsDoubleBuffer) {
  // `schedule(optimal) pingpong(double_buffer)`: the schedule chooses the ring and the split, the
  // written turns are kept (with the DMA role they need) and so is their double buffer.
  const std::string base = default_only(example_text("flash_attention_2"), "mapping sm_90a when(D <= 64)");
  ir::Function s = lower(replaced(base, "warpspecialize pipeline(2) pingpong smem", "schedule(optimal) pingpong(double_buffer) smem"),
                         "flash_attention_2");
  ASSERT_EQ(s.schedule_notes.size(), 1u);
  const ir::ScheduleNote& n = s.schedule_notes[0];
  EXPECT_NE(n.realized.find("warpspecialize"), std::string::npos) << n.realized;
  EXPECT_NE(n.realized.find(", pingpong(double_buffer) ("), std::string::npos) << n.realized;
  const std::vector<const ir::Op*> loops = pipelined_loops(s);
  ASSERT_FALSE(loops.empty());
  EXPECT_TRUE(loops.front()->pingpong);
  EXPECT_TRUE(loops.front()->pingpong_double_buffer);
  EXPECT_TRUE(loops.front()->warp_specialize);
}

// The IR of the program under its last mapping (a specialization: mapping_units), and its notes.
ir::Function lower_last_mapping(const std::string& text, const std::string& name) {
  auto r = check_text(text, name + ".loom");
  EXPECT_TRUE(r.ok && r.tree.has_value()) << r.diagnostics;
  if (!r.ok || !r.tree) return {};
  std::vector<MappingUnit> units = mapping_units(r.program, *r.tree);
  return lower_to_event_ir(units.back().program, units.back().tree);
}

// examples/flash_attention_2 with its when(D > 128) mapping's hand schedule replaced by `clause`.
std::string wide_attention_with(const std::string& clause) {
  const std::string hand = example_text("flash_attention_2");
  const size_t wide = hand.find("mapping sm_90a when(D > 128)");
  EXPECT_NE(wide, std::string::npos);
  if (wide == std::string::npos) return hand;
  return hand.substr(0, wide) + replaced(hand.substr(wide), "warpspecialize pipeline(2) pingpong", clause);
}

TEST(ScheduleOptimal, AnUndecidedAttentionLoopIsSolvedAsSubTiles) {
  // FlashAttention-2's when(D > 128) mapping (64-row S tiles, the 256-wide O): the one-tile search
  // runs out of its budget (the SMT queries at the smallest II are undecided), and the rule for
  // turns picks pingpong (the GEMMs bound the loop's II and the softmax waits on their results).
  // The turns are then solved as the kernel runs them, two sub-tile teams (solve_subtiles): II = 52,
  // proven (ResMII), each sub-tile on a warp group of its own, one turn each on the tensor core. So
  // no rule and no warning: the hand mapping's turns and depth with the sub-tile schedule's register
  // split, op for op. (The rule stays for loops whose sub-tile graph does not solve either.)
  const std::string hand = wide_attention_with("warpspecialize pipeline(2) pingpong regs(24, 240)");
  const std::string solved = wide_attention_with("schedule(optimal)");
  ir::Function h = lower_last_mapping(hand, "flash_attention_2"), s = lower_last_mapping(solved, "flash_attention_2");
  EXPECT_EQ(ir::print(s), ir::print(h));
  ASSERT_EQ(s.schedule_notes.size(), 1u);
  const ir::ScheduleNote& n = s.schedule_notes[0];
  EXPECT_TRUE(n.warning.empty()) << n.warning;
  EXPECT_NE(n.report.find("no schedule: the search ran out of its budget (4 million solver units)"), std::string::npos) << n.report;
  EXPECT_NE(n.report.find("sub-tiles (the turns): the loop as 2 sub-tile teams, one a compute warpgroup: II = 52"), std::string::npos)
      << n.report;
  EXPECT_NE(n.report.find("II=52 is minimal: II >= 52 by ResMII"), std::string::npos) << n.report;
  EXPECT_EQ(n.subtiles, 2);
  EXPECT_TRUE(n.subtile_turns);
  EXPECT_NE(n.realized.find("pingpong (2 compute warp groups take turns; the loop's one-tile search: the search ran out of its budget"),
            std::string::npos)
      << n.realized;
  EXPECT_NE(n.realized.find("the sub-tile schedule's turns: each of the 2 sub-tiles on a warp group of its own"), std::string::npos) << n.realized;
  EXPECT_NE(n.realized.find("regs(24, 240)"), std::string::npos) << n.realized;
}

TEST(ScheduleOptimal, ALargerBudgetSolvesTheWideAttentionLoop) {
  // The same loop with schedule(optimal, budget=80): 80 million solver units (about 4-5 s here)
  // find and prove II = 44 (the softmax recurrence's bound is 43, refuted), three warp groups, the
  // fewest; the settings read off it are the hand mapping's turns and depth with the schedule's
  // register split. Deterministic: the budget is Z3's resource count, not time.
  ir::Function s = lower_last_mapping(wide_attention_with("schedule(optimal, budget=80)"), "flash_attention_2");
  ASSERT_EQ(s.schedule_notes.size(), 1u);
  const ir::ScheduleNote& n = s.schedule_notes[0];
  EXPECT_TRUE(n.warning.empty()) << n.warning;
  EXPECT_NE(n.report.find("II = 44"), std::string::npos) << n.report;
  EXPECT_NE(n.report.find("3 warp group(s) (the fewest)"), std::string::npos) << n.report;
  EXPECT_NE(n.report.find("optimal: yes"), std::string::npos) << n.report;
  EXPECT_NE(n.report.find("of 80000000)"), std::string::npos) << n.report;
  EXPECT_NE(n.realized.find("pipeline(2)"), std::string::npos) << n.realized;
  EXPECT_NE(n.realized.find("pingpong (2 compute warp groups take turns; the sub-tile schedule's turns"), std::string::npos) << n.realized;
  EXPECT_NE(n.realized.find("regs(24, 240)"), std::string::npos) << n.realized;
}

TEST(ScheduleOptimal, RunsOnTheCpuAndShowsItsSchedule) {
  // The CLI as a user runs it: the scheduled program runs on the CPU executor against the
  // reference at a non-tile shape, and --emit=schedule shows the schedule and the settings.
  const std::string file = testing::TempDir() + "schedule_optimal_gemm.loom";
  std::ofstream(file) << replaced(default_only(example_text("gemm"), "// Other tile shapes"), "warpspecialize pipeline(3)", "schedule(optimal)");
  test::Cli run = test::run_loom("run --cpu " + file + " --size M=200,N=300,K=130 --seed 5", "");
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("match"), std::string::npos) << run.out;
  test::Cli show = test::run_loom("compile " + file + " --emit=schedule", "");
  EXPECT_EQ(show.status, 0) << show.err;
  EXPECT_NE(show.out.find("schedule(optimal) of instance 'gemm_block'"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("  realized: warpspecialize"), std::string::npos) << show.out;
  EXPECT_TRUE(show.err.empty()) << show.err;  // no fallback warning
  // --svg draws the solved schedule (one instance, one mapping: the file itself).
  const std::string svg = testing::TempDir() + "schedule_optimal_gemm.svg";
  std::filesystem::remove(svg);
  test::Cli draw = test::run_loom("compile " + file + " --emit=schedule --svg " + svg, "");
  EXPECT_EQ(draw.status, 0) << draw.err;
  EXPECT_NE(draw.out.find("// wrote " + svg), std::string::npos) << draw.out;
  const std::string picture = test::read_file(svg);
  EXPECT_EQ(picture.rfind("<?xml", 0), 0u) << picture.substr(0, 80);
  EXPECT_NE(picture.find("<svg"), std::string::npos);
  EXPECT_NE(picture.find("gemm_block"), std::string::npos);
  // Only with --emit=schedule: elsewhere it is a usage error.
  test::Cli wrong = test::run_loom("compile " + file + " --svg " + svg, "");
  EXPECT_NE(wrong.status, 0);
  EXPECT_NE(wrong.err.find("--svg draws what schedule(optimal) solved"), std::string::npos) << wrong.err;
  std::filesystem::remove(svg);
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace loom

namespace loom {
namespace {

// Property (issue 12, "Done when"): for random small loops — the K loops of the GEMM-family examples
// (plain, batched, two GEMMs into two accumulators, a prologue, bias and activation, a residual,
// row sums in registers or in shared memory), every mapping's `warpspecialize pipeline(D)
// [pingpong]` replaced by `schedule(optimal)`, at a random non-tile shape — the scheduled IR runs
// correctly on the CPU executor (the CLI's seeded random order with the race check, against the
// sequential reference), and the realized loop is the solver's: warp specialization exactly when
// the schedule puts the loads on warp groups of their own, the ring depth ceil(latency / II) + 1
// (clipped to [2, 8], lower only when the stages do not fit), turns when the compute ops take two
// or more groups (and then the turns' sub-tile schedule, where found, each sub-tile on a warp group of
// its own), the DMA warpgroup at setmaxnreg's least registers (the loads hold none) and the compute
// warpgroups at the rest. The seed is printed; rerun one case with LOOM_SCHED_PROPERTY_SEED=S.
TEST(ScheduleOptimalProperty, RandomLoopsRunOnTheCpuAndRealizeTheSolversSchedule) {
  struct Example {
    const char* name;
    std::vector<const char*> dims;  // the entry's extents, in --size order
  };
  const std::vector<Example> examples = {
      {"gemm", {"M", "N", "K"}},          {"batched_gemm", {"Bt", "M", "N", "K"}}, {"dual_gemm", {"M", "N", "K"}},
      {"relu_gemm", {"M", "N", "K"}},     {"gemm_bias_act", {"M", "N", "K"}},      {"gemm_residual", {"M", "N", "K"}},
      {"gemm_reduce", {"M", "N", "K"}},   {"gemm_reduce_shared", {"M", "N", "K"}},
      // Attention loops (the softmax recurrence; flash_attention_3's carried scores, where the
      // back end refuses turns and the schedule keeps the loop's own overlap).
      {"flash_attention_2", {"BH", "M", "N", "D"}}, {"flash_attention_3", {"BH", "M", "N", "D"}},
      {"flash_attention_3_causal", {"BH", "M", "N", "D"}},
  };
  const std::vector<uint64_t> case_seeds = test::property_seeds("LOOM_SCHED_PROPERTY_SEED", 20261127, 10);
  for (const uint64_t case_seed : case_seeds) {
    std::mt19937_64 r(case_seed);
    const Example& ex = examples[r() % examples.size()];
    std::string text = example_text(ex.name);
    int clauses = 0;
    for (const char* hand : {"warpspecialize pipeline(2) pingpong", "warpspecialize pipeline(3) pingpong", "warpspecialize pipeline(2)",
                             "warpspecialize pipeline(3)", "warpspecialize pipeline(4)", "warpspecialize pipeline(5)"})
      for (size_t at = text.find(hand); at != std::string::npos; at = text.find(hand, at)) {
        text.replace(at, std::string(hand).size(), "schedule(optimal)");
        ++clauses;
      }
    std::string size;
    for (const char* d : ex.dims) {
      const std::string dim = d;
      const int64_t v = dim == "Bt" || dim == "BH" ? 1 + static_cast<int64_t>(r() % (dim == "BH" ? 2 : 3))
                        : dim == "D"               ? 1 + static_cast<int64_t>(r() % 128)  // (the D > 128 mapping's tiles are 256 wide)
                                                   : 1 + static_cast<int64_t>(r() % (ex.dims.size() == 4 && dim != "K" ? 200 : 300));
      size += std::string(size.empty() ? "" : ",") + d + "=" + std::to_string(v);
    }
    const uint64_t run_seed = r() % 1000;
    SCOPED_TRACE("LOOM_SCHED_PROPERTY_SEED=" + std::to_string(case_seed) + " reruns this case: " + ex.name + " --size " + size +
                 " --seed " + std::to_string(run_seed));
    ASSERT_GT(clauses, 0) << ex.name;
    // The realized loop against the solver's schedule (the default mapping).
    ir::Function f = lower(text, ex.name);
    ASSERT_FALSE(f.schedule_notes.empty());
    const ir::ScheduleNote& note = f.schedule_notes.front();
    EXPECT_TRUE(note.warning.empty()) << note.warning;
    ASSERT_FALSE(note.node_ops.empty()) << note.report;
    ASSERT_EQ(note.node_ops.size(), note.node_warp.size());
    std::set<int> load_groups, compute_groups;
    for (size_t i = 0; i < note.node_ops.size(); ++i) (note.node_ops[i] == "tma_load" ? load_groups : compute_groups).insert(note.node_warp[i]);
    bool ws = !load_groups.empty();
    for (int g : load_groups) ws = ws && !compute_groups.count(g);
    // ceil(load latency / II) + 1 stages, 2 to 8, with the machine model's latency (1500 cycles).
    const double latency = static_cast<double>(hopper_machine().cost.load_latency_cycles);
    ASSERT_GT(latency, 0);
    const int64_t want = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(latency / note.ii_cycles)) + 1, 2, 8);
    EXPECT_EQ(note.depth_wanted, want) << note.report;
    std::vector<const ir::Op*> loops = pipelined_loops(f);
    ASSERT_FALSE(loops.empty());
    const ir::Op& loop = *loops.front();
    EXPECT_EQ(loop.warp_specialize, ws) << note.report << note.realized;
    EXPECT_LE(loop.pipeline_depth, want) << note.realized;
    if (loop.pipeline_depth < want) EXPECT_NE(note.realized.find("fit the shared-memory budget"), std::string::npos) << note.realized;
    else EXPECT_EQ(loop.pipeline_depth, want);
    // Turns where the schedule's compute takes two or more groups, unless the back end refuses them
    // on this loop (flash_attention_3's carried scores; the note says so).
    const bool refused = note.realized.find("no pingpong (the turns of the schedule's") != std::string::npos;
    if (refused) EXPECT_EQ(std::string(ex.name).rfind("flash_attention_3", 0), 0u) << note.realized;
    EXPECT_EQ(loop.pingpong, compute_groups.size() >= 2 && !refused) << note.report << note.realized;
    // With turns, the turns' own schedule (the loop as one sub-tile team per compute warpgroup), where
    // the search finds it within its budget (the causal flash_attention_3 loops' may not: the report
    // says so), takes turns: each sub-tile's ops on a warp group of its own, the loads on others.
    if (loop.pingpong && !note.subtile_nodes.empty()) {
      ASSERT_TRUE(f.warp_roles.has_value());
      EXPECT_EQ(note.subtiles, f.warp_roles->compute_warpgroups) << note.report;
      EXPECT_TRUE(note.subtile_turns) << note.report;
      std::map<std::string, std::set<int>> team_groups;  // "#c" (or "" for the shared loads) -> warp groups
      for (size_t i = 0; i < note.subtile_nodes.size() && i < note.subtile_warp.size(); ++i) {
        const size_t hash = note.subtile_nodes[i].rfind('#');
        team_groups[hash == std::string::npos ? "" : note.subtile_nodes[i].substr(hash)].insert(note.subtile_warp[i]);
      }
      std::set<int> taken;
      for (auto& [team, groups] : team_groups)
        if (!team.empty()) {
          EXPECT_EQ(groups.size(), 1u) << team << "\n" << note.report;
          if (!groups.empty()) EXPECT_TRUE(taken.insert(*groups.begin()).second) << team << "\n" << note.report;
        }
      for (int g : team_groups[""]) EXPECT_FALSE(taken.count(g)) << note.report;
    }
    // Teams: the tile loop's schedule's (or alternate(T) as written, kept).
    EXPECT_EQ(loop.alternate, note.teams) << note.report << note.realized;
    if (!note.tile_graphs.empty()) {
      EXPECT_NE(note.report.find("chosen: " + std::to_string(note.teams) + " team(s)"), std::string::npos) << note.report;
    }
    // The register split: the load groups hold only shared-memory values (a TMA load's result), so
    // the DMA warpgroup gets setmaxnreg's least, and the compute warpgroups the rest of the pool.
    if (ws) {
      const Limits& l = hopper_machine().limits;
      ASSERT_TRUE(f.warp_roles.has_value());
      const ir::WarpRoles& w = *f.warp_roles;
      const int64_t pool = register_pool(w.dma_warpgroups + w.compute_warpgroups, hopper_machine());
      EXPECT_EQ(w.dma_regs, l.setmaxnreg_min) << note.realized;
      EXPECT_EQ(w.compute_regs, std::min<int64_t>(l.setmaxnreg_max, (pool - w.dma_regs) / w.compute_warpgroups / 8 * 8)) << note.realized;
      EXPECT_NE(note.realized.find("regs(" + std::to_string(w.dma_regs) + ", " + std::to_string(w.compute_regs) + ")"), std::string::npos)
          << note.realized;
    }
    std::printf("  %s --size %s --seed %llu: II %.0f cycles, %s, pipeline(%lld)%s, %lld team(s)\n", ex.name, size.c_str(),
                static_cast<unsigned long long>(run_seed), note.ii_cycles, ws ? "warpspecialize" : "nowarpspecialize",
                static_cast<long long>(loop.pipeline_depth), loop.pingpong ? " pingpong" : "", static_cast<long long>(note.teams));
    // Every mapping, scheduled, on the CPU executor against the reference.
    const std::string file = testing::TempDir() + "schedule_property_" + ex.name + ".loom";
    std::ofstream(file) << text;
    test::Cli run = test::run_loom("run --cpu " + file + " --size " + size + " --seed " + std::to_string(run_seed), "");
    EXPECT_EQ(run.status, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("match"), std::string::npos) << run.out << run.err;
    std::filesystem::remove(file);
  }
}

}  // namespace
}  // namespace loom
