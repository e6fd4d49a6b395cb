// kteams(T) (docs/mapping.md "Teams sharing the K loop", docs/codegen.md; src/codegen/kteams.cpp):
// - the option parses, prints and reaches the IR loop and the warp roles (T teams of G warpgroups
//   that share every tile);
// - examples/gemm's default mapping with 64 x 128 tiles, one warpgroup a team, kteams(2): team t runs
//   the iterations whose ring positions are t mod 2, waits for its own wgmmas and releases each slot
//   at once with its own 4 warps; the other team hands its partial sums to team 0 through shared
//   memory and an mbarrier pair; team 0 adds them in the order of their classes and alone runs the
//   epilogue (staging tiles for team 0 only); the cost estimate adds the hand-over;
// - two warpgroups a team, four teams, multicast(4, 2);
// - the CPU executor runs the programs (random legal orders, race check) to the reference's results;
// - what the back end refuses is a located CompileError (partial sums over the shared-memory budget,
//   a loop that does more than load and accumulate); the checker's errors are tests/errors/kteams_*.loom.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "codegen_util.h"
#include "passes/pipeline.h"

namespace loom {
namespace {

using test::check_text;
using test::compile_mappings;
using test::count_of;
using test::expect_executor_matches;
using test::example_text;
using test::replaced;

// examples/gemm's default mapping with U x V tiles (N_MMA = V), G warpgroups a team, kteams(T), D
// stages, and `extra` clauses on the block instance.
std::string kteams_gemm(int U, int V, int G, int T, int D, const std::string& extra = "") {
  std::string t = example_text("gemm");
  t = t.substr(0, t.find("// Other tile shapes"));
  t = replaced(t, "tune(U=128, V=256)", "tune(U=" + std::to_string(U) + ", V=" + std::to_string(V) + ")");
  for (int i = 0; i < 3; ++i) t = replaced(t, "tune(G=2)", "tune(G=" + std::to_string(G) + ")");
  for (int i = 0; i < 6; ++i) t = replaced(t, "N_MMA=256", "N_MMA=" + std::to_string(V));
  return replaced(t, "warpspecialize pipeline(3)\n      smem(227KB);",
                  "warpspecialize pipeline(" + std::to_string(D) + ")\n      " + extra + "kteams(" + std::to_string(T) + ") smem(227KB);");
}

// The TMA kernel of mapping 0 (after the async-copy variant).
std::string tma_kernel(const std::string& cu) { return cu.substr(cu.find("// The TMA kernel.")); }

TEST(KTeams, ParsesPrintsAndReachesTheLoop) {
  const std::string text = kteams_gemm(64, 128, 1, 2, 6);
  auto r = check_text(text, "gemm.loom");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(format_program(r.program).find("warpspecialize pipeline(6)\n      kteams(2) smem(227KB);"), std::string::npos)
      << format_program(r.program);
  test::CompiledMappings c = compile_mappings(text, "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  EXPECT_NE(c.ir.find("pipeline(6) warpspecialize kteams(2)"), std::string::npos) << c.ir;
  EXPECT_NE(c.ir.find("compute: 2 x 232 regs, 2 K teams)"), std::string::npos) << c.ir;
}

TEST(KTeams, TeamsShareTheKLoop) {
  test::CompiledMappings c = compile_mappings(kteams_gemm(64, 128, 1, 2, 6), "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  const std::string tma = tma_kernel(cu);
  EXPECT_NE(cu.find("384 threads per block (1 DMA warpgroup at 40 registers, 2 compute warpgroups at 232)"), std::string::npos);
  EXPECT_NE(tma.find("const int64_t team = consumer_wg / 1;"), std::string::npos);
  EXPECT_EQ(tma.find("tile_iter % 2 != team"), std::string::npos) << "every team works on every tile";
  EXPECT_EQ(tma.find("alternate:"), std::string::npos) << "no turns";
  // The team's iterations: those whose ring positions are team mod 2.
  EXPECT_NE(tma.find("const int64_t v_k_first = static_cast<int64_t>((static_cast<uint64_t>(team) + 2u - v_e_1_base % 2u) % 2u);"),
            std::string::npos)
      << tma;
  const size_t loop = tma.find("for (int64_t v_k = v_k_first; v_k < v_6; v_k += 2) {");
  ASSERT_NE(loop, std::string::npos) << tma;
  // The DMA role walks every iteration.
  EXPECT_NE(tma.find("for (int64_t v_k = 0; v_k < v_6; ++v_k) {"), std::string::npos);
  // Each iteration waits for the team's own wgmmas and releases its slot (4 warps of one team).
  const size_t wait0 = tma.find("loom::rt::wgmma_wait<0>();", loop);
  const size_t release = tma.find("loom::rt::mbarrier::arrive(&bar_v_w[(v_e_1_base + v_k) % 6]);", loop);
  ASSERT_NE(release, std::string::npos) << tma;
  EXPECT_LT(wait0, release);
  EXPECT_EQ(tma.find("wgmma_wait<1>", loop), std::string::npos) << "no group left in flight";
  EXPECT_NE(tma.find("loom::rt::mbarrier::init(&bar_v_w[s], 4);"), std::string::npos);
  // The hand-over: team 1 writes, team 0 reads, an mbarrier pair with the tile's parity.
  EXPECT_NE(tma.find("loom::rt::mbarrier::init(&bar_kteams_ready[s], 128);"), std::string::npos) << tma;
  EXPECT_NE(tma.find("loom::rt::mbarrier::init(&bar_kteams_free[s], 128);"), std::string::npos);
  const size_t free_wait = tma.find("if (tile_iter > 0) loom::rt::mbarrier::wait(&bar_kteams_free[w], (tile_iter - 1) & 1);");
  const size_t store = tma.find("mine[(0 + q) * 128 + tid] = make_float4(v_C_1[4 * q]", free_wait);
  const size_t ready = tma.find("loom::rt::mbarrier::arrive(&bar_kteams_ready[w]);", store);
  const size_t ready_wait = tma.find("loom::rt::mbarrier::wait(&bar_kteams_ready[w], tile_iter & 1);", ready);
  const size_t add = tma.find("const int64_t t = (c + 2 - v_k_first) % 2;", ready_wait);
  const size_t freed = tma.find("loom::rt::mbarrier::arrive(&bar_kteams_free[w]);", add);
  const size_t rest = tma.find("if (team == 0) {  // the rest of the tile: team 0 only", freed);
  const size_t store_c = tma.find("tma_store_2d(&tm_C_", rest);
  for (size_t at : {free_wait, store, ready, ready_wait, add, freed, rest, store_c}) ASSERT_NE(at, std::string::npos) << tma;
  EXPECT_NE(tma.find("float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);"), std::string::npos) << "the classes' sum starts at 0";
  // Staging tiles for team 0's warpgroup only; the partial sums after them.
  EXPECT_NE(tma.find("epilogue staging tiles, one per compute warpgroup of team 0 (1 x 16384 bytes)"), std::string::npos) << tma;
  EXPECT_NE(tma.find("kteams(2): the partial sums of team 1, one buffer per warpgroup (1 x 32768 bytes; kteams.cpp)"),
            std::string::npos);
  // The async-copy variant shares the K loop the same way.
  const std::string variant = cu.substr(0, cu.find("// The TMA kernel."));
  EXPECT_NE(variant.find("for (int64_t v_k = v_k_first; v_k < v_6; v_k += 2) {"), std::string::npos);
  EXPECT_NE(variant.find("if (team == 0) {  // the rest of the tile: team 0 only"), std::string::npos);
}

TEST(KTeams, TwoWarpgroupsATeam) {
  test::CompiledMappings c = compile_mappings(kteams_gemm(128, 128, 2, 2, 4), "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  const std::string tma = tma_kernel(cu);
  EXPECT_NE(cu.find("640 threads per block (1 DMA warpgroup at 40 registers, 4 compute warpgroups at 104)"), std::string::npos);
  EXPECT_NE(tma.find("const int64_t team = consumer_wg / 2;"), std::string::npos);
  EXPECT_NE(tma.find("const int64_t w = consumer_wg % 2;  // the warpgroup's rank in its team"), std::string::npos);
  EXPECT_NE(tma.find("loom::rt::mbarrier::init(&bar_v_w[s], 8);"), std::string::npos) << "the team's 8 warps";
  EXPECT_NE(tma.find("for (int s = 0; s < 2; ++s) loom::rt::mbarrier::init(&bar_kteams_ready[s], 128);"), std::string::npos) << tma;
  EXPECT_NE(tma.find("const int64_t v_g = consumer_wg % 2;  // proc_index WARPGROUP (in the team)"), std::string::npos);
}

TEST(KTeams, FourTeams) {
  // 64 x 64 tiles, four teams of one warpgroup, 8 stages: every team's slots are 2 of the 8.
  test::CompiledMappings c = compile_mappings(kteams_gemm(64, 64, 1, 4, 8), "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string tma = tma_kernel(c.artifact->cu);
  EXPECT_NE(tma.find("for (int64_t v_k = v_k_first; v_k < v_6; v_k += 4) {"), std::string::npos) << tma;
  EXPECT_NE(tma.find("loom::rt::mbarrier::init(&bar_kteams_ready[s], 384);"), std::string::npos) << "three teams' 128 threads";
  EXPECT_NE(tma.find("const int64_t t = (c + 4 - v_k_first) % 4;"), std::string::npos);
  EXPECT_NE(tma.find("part[((t - 1) * 1 + w) * 1024 + (0 + q) * 128 + tid]"), std::string::npos) << tma;
}

TEST(KTeams, WithMulticast) {
  // The cluster's blocks walk the same tiles and deal them the same iterations, so the team that
  // reads a slot in one block reads its neighbours' too: its warpgroup releases it in each block
  // of the cluster's row and column.
  test::CompiledMappings c = compile_mappings(kteams_gemm(64, 128, 1, 2, 8, "multicast(4, 2) "), "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string tma = tma_kernel(c.artifact->cu);
  EXPECT_NE(tma.find("loom::rt::mbarrier::arrive_cluster(&bar_v_w["), std::string::npos) << tma;
  EXPECT_NE(tma.find("for (int64_t v_k = v_k_first; v_k < v_6; v_k += 2) {"), std::string::npos);
  EXPECT_NE(tma.find("if (team == 0) {  // the rest of the tile: team 0 only"), std::string::npos);
}

TEST(KTeams, CostEstimateAddsTheHandOver) {
  std::string original = example_text("gemm");
  original = original.substr(0, original.find("// Other tile shapes"));
  original = replaced(original.substr(original.find("mapping sm_90a {")), "mapping sm_90a {", "mapping sm_90a when(fastest) {");
  test::CompiledMappings c = compile_mappings(kteams_gemm(64, 128, 1, 2, 6) + original, "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  const std::string m0 = cu.substr(cu.find("namespace mapping0 {"), cu.find("namespace mapping1 {") - cu.find("namespace mapping0 {"));
  EXPECT_NE(m0.find("524288 FMA and 24576 TMA bytes per iteration"), std::string::npos) << "one team's 64 x 128 x 64";
  EXPECT_NE(m0.find("tile += 65536.0 / 128.0;"), std::string::npos) << "32 KB written and read back";
  EXPECT_EQ(m0.find("double fixed"), std::string::npos) << "not alternate's estimate";
}

TEST(KTeams, TheExecutorRunsIt) {
  // The option changes who runs an iteration, not what the event IR means: the CPU executor (random
  // legal orders, race check) matches the sequential reference at non-tile extents.
  for (const std::string& text : {kteams_gemm(64, 128, 1, 2, 6), kteams_gemm(128, 128, 2, 2, 4), kteams_gemm(64, 64, 1, 4, 8)}) {
    auto r = check_text(text, "gemm.loom");
    ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
    const ir::Function f = lower_to_event_ir(r.program, *r.tree);
    EXPECT_NE(ir::print(f).find("kteams("), std::string::npos);
    ASSERT_NO_FATAL_FAILURE(expect_executor_matches(r, f, {{"M", 150}, {"N", 270}, {"K", 200}}, 2));
  }
}

TEST(KTeams, ScheduleOptimalKeepsTheTeams) {
  // schedule(optimal) chooses the ring's depth (here ceil(1500 / 256) + 1 = 7): rounded up to a
  // multiple of the teams written beside it, within its limit of 8; no turns, no derived teams.
  std::string text = kteams_gemm(64, 128, 1, 2, 6);
  text = replaced(text, "warpspecialize pipeline(6)\n      kteams(2)", "schedule(optimal)\n      kteams(2)");
  test::CompiledMappings c = compile_mappings(text, "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  EXPECT_NE(c.ir.find("pipeline(8) warpspecialize kteams(2)"), std::string::npos) << c.ir;
  EXPECT_NE(c.ir.find("2 K teams)"), std::string::npos) << c.ir;
  EXPECT_EQ(c.ir.find("pingpong"), std::string::npos) << c.ir;
}

TEST(KTeams, RefusesPartialSumsOverTheBudget) {
  // 64 x 128 tiles on four teams: 8 stages of 24 KB and three 32 KB partial-sum buffers do not fit.
  test::CompiledMappings c = compile_mappings(kteams_gemm(64, 128, 1, 4, 8), "gemm");
  ASSERT_TRUE(c.error) << "compiled";
  EXPECT_TRUE(c.error->loc.valid());
  EXPECT_NE(c.error->message.find("kteams(4) needs"), std::string::npos) << c.error->message;
  EXPECT_NE(c.error->message.find("with its partial-sum buffers (3 x 32768 bytes)"), std::string::npos) << c.error->message;
  EXPECT_NE(c.error->hint.find("a multiple of 4"), std::string::npos) << c.error->hint;
}

TEST(KTeams, RefusesALoopThatDoesMoreThanSum) {
  // Attention's K loop carries its running max and sum: not a sum the teams could split.
  std::string t = example_text("flash_attention_2");
  t = replaced(t, "warpspecialize pipeline(2) pingpong smem(227KB);", "warpspecialize pipeline(2) kteams(2) smem(227KB);");
  test::CompiledMappings c = compile_mappings(t, "flash_attention_2");
  ASSERT_TRUE(c.error) << "compiled";
  EXPECT_TRUE(c.error->loc.valid());
  EXPECT_NE(c.error->message.find("kteams(2)"), std::string::npos) << c.error->message;
}

}  // namespace
}  // namespace loom
