// schedule(optimal) (issue 12, part 2; src/passes/schedule_optimal.h, docs/schedule.md "In the
// compiler"): the clause parses and prints; the compiler solves the instance's loop with src/sched
// and lowers it with the settings read off the schedule; on the examples those are the settings
// their hand mappings give (GEMM: warpspecialize pipeline(3) at 128 x 256 tiles, pipeline(4) at
// 128 x 128; FlashAttention-2: warpspecialize pipeline(2) pingpong, FA3's structure), and the
// lowered IR is the hand mapping's, op for op; the note records the schedule and the settings; the
// scheduled program runs on the CPU executor against the reference (the CLI, as a user runs it). The
// checker's errors are tests/errors/schedule_*.loom.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "codegen_util.h"

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
}

TEST(ScheduleOptimal, GemmGetsItsHandMapping) {
  const std::string hand = default_only(example_text("gemm"), "// Other tile shapes");
  const std::string solved = replaced(hand, "warpspecialize pipeline(3)", "schedule(optimal)");
  ir::Function h = lower(hand, "gemm"), s = lower(solved, "gemm");
  EXPECT_EQ(ir::print(s), ir::print(h));
  ASSERT_EQ(s.schedule_notes.size(), 1u);
  const ir::ScheduleNote& n = s.schedule_notes[0];
  EXPECT_EQ(n.instance, "gemm_block");
  EXPECT_TRUE(n.warning.empty()) << n.warning;
  EXPECT_NE(n.report.find("optimal: yes"), std::string::npos) << n.report;
  EXPECT_NE(n.report.find("1024 cycles"), std::string::npos) << n.report;
  EXPECT_NE(n.realized.find("warpspecialize (the loads on a warp group of their own), pipeline(3) (ceil(1500 cycles of load latency / 1024 "
                            "per iteration) + 1 = 3), no pingpong"),
            std::string::npos)
      << n.realized;
}

TEST(ScheduleOptimal, SmallerTilesGetADeeperRing) {
  // 128 x 128 tiles: half the tensor-core work per K step, so four stages cover the load latency
  // (examples/gemm's 128 x 128 candidate is written pipeline(4)).
  std::string hand = default_only(example_text("gemm"), "// Other tile shapes");
  hand = replaced(hand, "tune(U=128, V=256)", "tune(U=128, V=128)");
  for (int i = 0; i < 6; ++i) hand = replaced(hand, "N_MMA=256", "N_MMA=128");
  hand = replaced(hand, "warpspecialize pipeline(3)", "warpspecialize pipeline(4)");
  const std::string solved = replaced(hand, "warpspecialize pipeline(4)", "schedule(optimal)");
  ir::Function h = lower(hand, "gemm"), s = lower(solved, "gemm");
  EXPECT_EQ(ir::print(s), ir::print(h));
  ASSERT_EQ(s.schedule_notes.size(), 1u);
  EXPECT_NE(s.schedule_notes[0].realized.find("pipeline(4) (ceil(1500 cycles of load latency / 512 per iteration) + 1 = 4)"),
            std::string::npos)
      << s.schedule_notes[0].realized;
}

TEST(ScheduleOptimal, FlashAttentionGetsTheFa3Structure) {
  // FlashAttention-2's plain loop: the solver puts the loads on a group of their own and the
  // compute on two groups, which the back end realizes as two consumer warpgroups taking turns,
  // the loop rotated (the next tile's QK^T before this tile's P V): the hand mapping's
  // `warpspecialize pipeline(2) pingpong`.
  const std::string hand = default_only(example_text("flash_attention_2"), "mapping sm_90a when(D <= 64)");
  const std::string solved = replaced(hand, "warpspecialize pipeline(2) pingpong", "schedule(optimal)");
  ir::Function h = lower(hand, "flash_attention_2"), s = lower(solved, "flash_attention_2");
  EXPECT_EQ(ir::print(s), ir::print(h));
  ASSERT_EQ(s.schedule_notes.size(), 1u);
  const ir::ScheduleNote& n = s.schedule_notes[0];
  EXPECT_TRUE(n.warning.empty()) << n.warning;
  EXPECT_NE(n.realized.find("warpspecialize"), std::string::npos) << n.realized;
  EXPECT_NE(n.realized.find("pipeline(2)"), std::string::npos) << n.realized;
  EXPECT_NE(n.realized.find("pingpong (2 compute warp groups take turns)"), std::string::npos) << n.report << n.realized;
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
