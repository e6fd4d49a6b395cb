// alternate(T) (docs/mapping.md, docs/codegen.md "Teams taking the tiles in turn";
// src/codegen/alternate.cpp):
// - the option parses, prints and reaches the IR loop and the warp roles (T teams of G warpgroups);
// - examples/gemm's default mapping with 64 x 256 tiles, one warpgroup a team, alternate(2)
//   (tests/gpu/e2e/alternate.sed): a team skips the other's tiles by their trip counts, takes a turn
//   on the ring around its K loop, releases slots with its own 4 warps; the warpgroup index is the
//   rank in the team; the cost estimate keeps the fixed costs out of the waves;
// - two warpgroups a team: the team's syncs on a barrier of its own, 104 registers a consumer;
// - the CPU executor runs the program (random legal orders, race check) to the reference's results;
// - gemm_reduce with one warpgroup a 128 x 128 tile (tests/gpu/e2e/reduce_pingpong.sed): row sums
//   over two row blocks, run by the executor too;
// - what the back end refuses is a located CompileError (row vectors kept in registers for 128 rows
//   a warpgroup among them); the checker's errors are
//   tests/errors/alternate_*.loom.
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

// examples/gemm's default mapping with U x 256 tiles, G warpgroups a tile, alternate(T), D stages.
std::string alternate_gemm(int U, int G, int T, int D) {
  std::string t = example_text("gemm");
  t = t.substr(0, t.find("// Other tile shapes"));
  t = replaced(t, "tune(U=128, V=256)", "tune(U=" + std::to_string(U) + ", V=256)");
  for (int i = 0; i < 3; ++i) t = replaced(t, "tune(G=2)", "tune(G=" + std::to_string(G) + ")");
  return replaced(t, "warpspecialize pipeline(3)\n      smem(227KB);",
                  "warpspecialize pipeline(" + std::to_string(D) + ")\n      alternate(" + std::to_string(T) + ") smem(227KB);");
}

TEST(Alternate, ParsesPrintsAndReachesTheLoop) {
  const std::string text = alternate_gemm(64, 1, 2, 5);
  auto r = check_text(text, "gemm.loom");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(format_program(r.program).find("warpspecialize pipeline(5)\n      alternate(2) smem(227KB);"), std::string::npos)
      << format_program(r.program);
  test::CompiledMappings c = compile_mappings(text, "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  EXPECT_NE(c.ir.find("pipeline(5) warpspecialize alternate(2)"), std::string::npos) << c.ir;
  EXPECT_NE(c.ir.find("compute: 2 x 232 regs, 2 teams)"), std::string::npos) << c.ir;
}

TEST(Alternate, TeamsTakeTheTilesInTurn) {
  test::CompiledMappings c = compile_mappings(alternate_gemm(64, 1, 2, 5), "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  const std::string tma = cu.substr(cu.find("// The TMA kernel."));
  EXPECT_NE(cu.find("384 threads per block (1 DMA warpgroup at 40 registers, 2 compute warpgroups at 232)"), std::string::npos);
  EXPECT_NE(tma.find("const int64_t team = consumer_wg / 1;"), std::string::npos);
  // Another team's tile: its K loop's trip count, recomputed in a scope of its own, continues the ring.
  const size_t skip = tma.find("if (tile_iter % 2 != team) {");
  ASSERT_NE(skip, std::string::npos) << tma;
  const std::string skipped = tma.substr(skip, tma.find("continue;", skip) - skip);
  EXPECT_NE(skipped.find("const int64_t v_6 = loom_cdiv(v_K, v_U);"), std::string::npos) << skipped;
  EXPECT_NE(skipped.find("v_e_1_base += v_6;"), std::string::npos) << skipped;
  EXPECT_NE(skipped.find("++tile_iter;"), std::string::npos) << skipped;
  EXPECT_EQ(skipped.find("mbarrier"), std::string::npos) << "no waits or arrivals for another team's tile";
  // The turns: team 0 first, a turn around the K loop (handed over once its wgmmas are issued,
  // before the drain), the hand-over after the block's last tile.
  EXPECT_NE(tma.find("if (team == 1) loom::rt::named_barrier_arrive(3, 256);"), std::string::npos);
  const size_t turn = tma.find("loom::rt::named_barrier_sync(3 + team, 256);  // alternate: this team's turn on the ring");
  const size_t loop = tma.find("for (int64_t v_k = 0; v_k < v_6; ++v_k) {", skip);
  const size_t handover = tma.find("loom::rt::named_barrier_arrive(3 + (team + 1) % 2, 256);");
  const size_t drain = tma.find("loom::rt::wgmma_wait<0>();", handover);
  ASSERT_NE(turn, std::string::npos) << tma;
  EXPECT_LT(turn, loop);
  EXPECT_LT(loop, handover);
  EXPECT_EQ(drain, tma.find("loom::rt::wgmma_wait<0>();", loop)) << "the hand-over comes before the drain";
  EXPECT_NE(tma.find("if (team == tile_iter % 2) loom::rt::named_barrier_sync(3 + team, 256);"), std::string::npos);
  // A ring slot is released by the 4 warps of the one team that read it; the warpgroup index is
  // the rank in the team.
  EXPECT_NE(tma.find("loom::rt::mbarrier::init(&bar_v_w[s], 4);"), std::string::npos);
  EXPECT_NE(tma.find("const int64_t v_g = consumer_wg % 1;  // proc_index WARPGROUP (in the team)"), std::string::npos);
  // The async-copy variant takes turns the same way.
  const std::string variant = cu.substr(0, cu.find("// The TMA kernel."));
  EXPECT_NE(variant.find("if (tile_iter % 2 != team) {"), std::string::npos);
  EXPECT_NE(variant.find("loom::rt::mbarrier::init(&bar_v_w[s], 4);"), std::string::npos);
}

TEST(Alternate, TwoWarpgroupsATeam) {
  // 128 x 256 rows would need 128 accumulator registers in 104: 128 x 128 tiles, two teams of two.
  std::string text = alternate_gemm(128, 2, 2, 6);
  text = replaced(text, "tune(U=128, V=256)", "tune(U=128, V=128)");
  for (int i = 0; i < 6; ++i) text = replaced(text, "N_MMA=256", "N_MMA=128");
  test::CompiledMappings c = compile_mappings(text, "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  EXPECT_NE(cu.find("640 threads per block (1 DMA warpgroup at 40 registers, 4 compute warpgroups at 104)"), std::string::npos);
  EXPECT_NE(cu.find("const int64_t team = consumer_wg / 2;"), std::string::npos);
  EXPECT_NE(cu.find("loom::rt::named_barrier_sync(5 + team, 512);"), std::string::npos);  // turns after the epilogue's ids 1..4
  EXPECT_NE(cu.find("loom::rt::mbarrier::init(&bar_v_w[s], 8);"), std::string::npos);    // the team's 8 warps
  EXPECT_NE(cu.find("const int64_t v_g = consumer_wg % 2;  // proc_index WARPGROUP (in the team)"), std::string::npos);
}

// One warpgroup a 128 x 128 tile (two row blocks of 64 in its accumulator), two teams: CUTLASS's
// ping-pong GEMM; with multicast(2) the cluster's two blocks share B's loads as well.
std::string pingpong_gemm(bool multicast) {
  std::string t = alternate_gemm(128, 1, 2, 4);
  t = replaced(t, "tune(U=128, V=256)", "tune(U=128, V=128)");
  for (int i = 0; i < 6; ++i) t = replaced(t, "N_MMA=256", "N_MMA=128");
  if (multicast) t = replaced(t, "warpspecialize pipeline(4)\n", "warpspecialize pipeline(4) multicast(2)\n");
  return t;
}

TEST(Alternate, OneWarpgroupA128RowTile) {
  test::CompiledMappings c = compile_mappings(pingpong_gemm(false), "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  const std::string tma = cu.substr(cu.find("// The TMA kernel."));
  EXPECT_NE(cu.find("384 threads per block (1 DMA warpgroup at 40 registers, 2 compute warpgroups at 232)"), std::string::npos);
  EXPECT_NE(tma.find("float v_C_1[128];"), std::string::npos) << "two row blocks of 64 x 128: 2 x 64 registers";
  // Per k step one wgmma per row block: A's rows 0..63 and 64..127 through their own descriptors,
  // into registers 0.. and 64.. of the accumulator, with the same B.
  EXPECT_NE(tma.find("const uint64_t da1 = "), std::string::npos) << tma;
  EXPECT_NE(tma.find("+ 64)) * 64"), std::string::npos) << "row block 1 starts 64 rows into the A tile";
  EXPECT_NE(tma.find("(*reinterpret_cast<float(*)[64]>(&v_C_1[64]), da1, "), std::string::npos);
  EXPECT_EQ(count_of(tma, "loom::rt::wgmma_m64nNk16<128,"), 2);
  // The epilogue stores each row block: 64 rows further down, 64 registers further on.
  EXPECT_NE(tma.find("for (int rb = 0; rb < 2; ++rb) {  // row blocks of 64 rows"), std::string::npos);
  EXPECT_NE(tma.find("(mrow + 64 * rb) * 128"), std::string::npos) << "the staged store";
  EXPECT_NE(tma.find("const int64_t row0 = loom::rt::acc_row(tid, 0) + 64 * rb;"), std::string::npos) << "the direct store";
  EXPECT_NE(tma.find("v_C_1[rb * 64 + 4 * c]"), std::string::npos);
}

TEST(Alternate, WithMulticast) {
  // Both blocks of a cluster walk the same tiles in the same order, so the team that runs a tile
  // in one block runs its neighbour in the other: its warpgroup releases a slot in both (wgmmas
  // alone read it: one arrival per warpgroup, 1 x 2).
  test::CompiledMappings c = compile_mappings(pingpong_gemm(true), "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  const std::string tma = cu.substr(cu.find("// The TMA kernel."));
  EXPECT_NE(tma.find("loom::rt::mbarrier::init(&bar_v_w[s], 2);"), std::string::npos) << tma;
  EXPECT_NE(tma.find("loom::rt::mbarrier::arrive_cluster(&bar_v_w["), std::string::npos);
  EXPECT_NE(tma.find("], 2, 1, false, true, mc_rank);"), std::string::npos);  // per warpgroup
  EXPECT_NE(tma.find("* 2 + mc_rank;"), std::string::npos);
  EXPECT_NE(tma.find("if (tile_iter % 2 != team) {"), std::string::npos);
  EXPECT_NE(tma.find("loom::rt::named_barrier_sync(3 + team, 256);  // alternate: this team's turn on the ring"), std::string::npos);
}

TEST(Alternate, CostEstimateKeepsTheFixedCostsOutOfTheWaves) {
  // Its default with alternate(2), and examples/gemm's default as a when(fastest) candidate (with
  // candidates, each mapping has an estimate).
  std::string original = example_text("gemm");
  original = original.substr(0, original.find("// Other tile shapes"));
  original = replaced(original.substr(original.find("mapping sm_90a {")), "mapping sm_90a {", "mapping sm_90a when(fastest) {");
  const std::string text = alternate_gemm(64, 1, 2, 5) + original;
  test::CompiledMappings c = compile_mappings(text, "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  const std::string m0 = cu.substr(cu.find("namespace mapping0 {"), cu.find("namespace mapping1 {") - cu.find("namespace mapping0 {"));
  EXPECT_NE(m0.find("1048576 FMA and 40960 TMA bytes per iteration"), std::string::npos) << "one warpgroup's 64 x 256 x 64";
  EXPECT_NE(m0.find("double fixed = 500.0;  // alternate(2): under the next tile's main loop"), std::string::npos);
  EXPECT_NE(m0.find("return static_cast<double>((blocks + sms - 1) / sms) * tile + fixed;"), std::string::npos);
}

TEST(Alternate, TheExecutorRunsIt) {
  // The option changes who runs a tile, not what the event IR means: the CPU executor (random
  // legal orders, race check) matches the sequential reference at non-tile extents; so do 128-row
  // warpgroup tiles, with and without multicast.
  for (const std::string& text : {alternate_gemm(64, 1, 2, 5), pingpong_gemm(false), pingpong_gemm(true)}) {
  auto r = check_text(text, "gemm.loom");
  ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
  const ir::Function f = lower_to_event_ir(r.program, *r.tree);
  EXPECT_NE(ir::print(f).find("alternate(2)"), std::string::npos);
  ASSERT_NO_FATAL_FAILURE(expect_executor_matches(r, f, {{"M", 150}, {"N", 270}, {"K", 200}}, 3));
  }
}

// examples/gemm_reduce with one warpgroup a 128 x 128 tile and alternate(2)
// (tests/gpu/e2e/reduce_pingpong.sed): the row sums of a 128-row warpgroup tile.
std::string pingpong_gemm_reduce() {
  std::string t = example_text("gemm_reduce");
  t = replaced(t, "tune(U=128, V=256) call(gemm_reduce_tile", "tune(U=128, V=128) call(gemm_reduce_tile");
  for (int i = 0; i < 4; ++i) t = replaced(t, "tune(G=2)", "tune(G=1)");
  for (int i = 0; i < 8; ++i) t = replaced(t, "tune(N_MMA=256)", "tune(N_MMA=128)");
  return replaced(t, "warpspecialize pipeline(3) smem(227KB);", "warpspecialize pipeline(4) alternate(2) smem(227KB);");
}

TEST(Alternate, RowSumsOfA128RowTile) {
  // A thread holds 2 rows of each 64-row block: 4 row sums, register 2 b + h for row half h of
  // row block b, summed from registers b * 64 .. b * 64 + 63 of its fragment, and added into R at
  // row acc_row(t, 2 h) + 64 b.
  test::CompiledMappings c = compile_mappings(pingpong_gemm_reduce(), "gemm_reduce");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  const std::string tma = cu.substr(cu.find("// The TMA kernel."));
  EXPECT_NE(tma.find("float v_R_1[4];"), std::string::npos) << tma;
  EXPECT_NE(tma.find("for (int b = 0; b < 2; ++b) {  // row block b: rows 64 b .."), std::string::npos);
  EXPECT_NE(tma.find("+ v_C_1[b * 64 + r]);"), std::string::npos);
  EXPECT_NE(tma.find("v_R_1[2 * b + h] = "), std::string::npos);
  EXPECT_NE(tma.find("const int row = loom::rt::acc_row(tid, 2 * (r & 1)) + 64 * (r >> 1);"), std::string::npos);
  EXPECT_NE(tma.find("for (int r = 0; r < 4; ++r) {"), std::string::npos);
  EXPECT_NE(tma.find("if (tile_iter % 2 != team) {"), std::string::npos) << "the teams take the tiles in turn";
  // The CPU executor runs the mapping to the reference's results (random legal orders, race check).
  auto r = check_text(pingpong_gemm_reduce(), "gemm_reduce.loom");
  ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
  const ir::Function f = lower_to_event_ir(r.program, *r.tree);
  ASSERT_NO_FATAL_FAILURE(expect_executor_matches(r, f, {{"M", 150}, {"N", 270}, {"K", 100}}, 2));
}

TEST(Alternate, RefusesRowVectorsInRegistersOnA128RowTile) {
  // What still takes 64 rows a warpgroup: attention's running max and sum, row vectors kept in
  // registers one per warp (examples/flash_attention_2's default mapping with one warpgroup a
  // 128-row tile); a located "cannot lower" error, not wrong code.
  std::string t = example_text("flash_attention_2");
  t = t.substr(0, t.find("\nmapping sm_90a when("));
  for (size_t at = t.find("tune(G=2)"); at != std::string::npos; at = t.find("tune(G=2)")) t.replace(at, 9, "tune(G=1)");
  test::CompiledMappings c = compile_mappings(t, "flash_attention_2");
  ASSERT_TRUE(c.error) << "compiled";
  EXPECT_TRUE(c.error->loc.valid());
  EXPECT_NE(c.error->message.find("a row vector of 32 rows per warp kept in registers (16 are supported)"), std::string::npos)
      << c.error->message;
}

TEST(Alternate, RefusesABufferLoadedOncePerTile) {
  // flash attention's Q tile is loaded once per tile: its one barrier cannot serve teams that run
  // every other tile.
  std::string t = example_text("flash_attention_2");
  t = replaced(t, "warpspecialize pipeline(2) pingpong smem(227KB);", "warpspecialize pipeline(2) alternate(2) smem(227KB);");
  test::CompiledMappings c = compile_mappings(t, "flash_attention_2");
  ASSERT_TRUE(c.error) << "compiled";
  EXPECT_TRUE(c.error->loc.valid());
  EXPECT_NE(c.error->message.find("alternate(2) with a buffer loaded once per tile"), std::string::npos) << c.error->message;
}

TEST(Alternate, TakesTurnsOverARingChain) {
  // add_gemm's two K loops (A B, then C D) share one ring (rings.cpp): a team's turn on it spans both
  // loops (one sync before the first, one arrival after the last), and the producer does not wait
  // once per tile for the first loop's compute work (the ring's release barrier orders the refills,
  // sync.cpp dma_conflicts), which would have a barrier flip phase once per tile for teams that run
  // every other tile.
  std::string t = example_text("add_gemm");
  const size_t at = t.find("smem(227KB);");
  ASSERT_NE(at, std::string::npos);
  t.replace(at, 12, "alternate(2) smem(227KB);");
  t = t.substr(0, t.find("\nmapping sm_90a when("));
  for (int i = 0; i < 3; ++i) t = replaced(t, "tune(G=2)", "tune(G=1)");
  t = replaced(t, "tune(U=128, V=256) call(add_gemm", "tune(U=64, V=256) call(add_gemm");
  test::CompiledMappings c = compile_mappings(t, "add_gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  const std::string tma = cu.substr(cu.find("// The TMA kernel."));
  EXPECT_EQ(count_of(tma, "// alternate: this team's turn on the ring"), 1) << tma;
  EXPECT_EQ(count_of(tma, "// alternate: the next tile's team may start its loop"), 1);
  const std::string compute = tma.substr(tma.find("// ---- consumer"));
  EXPECT_LT(compute.find("// alternate: this team's turn on the ring"), compute.find("for (int64_t v_k = 0;"));
  EXPECT_GT(compute.find("// alternate: the next tile's team may start its loop"), compute.find("for (int64_t v_l = 0;"));
  EXPECT_EQ(tma.find("(once per tile)"), std::string::npos) << "no producer wait for the K loop's compute work";
  EXPECT_NE(tma.find("v_e_1_base += v_7;"), std::string::npos) << "another team's tile advances the ring by both loops";
  // The CPU executor runs the mapping to the reference's results (random legal orders, race check).
  auto r = check_text(t, "add_gemm.loom");
  ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
  const ir::Function f = lower_to_event_ir(r.program, *r.tree);
  ASSERT_NO_FATAL_FAILURE(expect_executor_matches(r, f, {{"M", 150}, {"N", 270}, {"K", 100}, {"L", 70}}, 2));
}

TEST(Alternate, RefusesASecondLoopOnAnotherRing) {
  // add_gemm with the L loop's steps twice as deep as the K loop's: its tiles differ, so it hoists
  // rings of its own (no ring chain), and the teams' turns, one ring's, cannot span both loops.
  std::string t = example_text("add_gemm");
  t = t.substr(0, t.find("\nmapping sm_90a when("));
  t = replaced(t, "  Cp = blocks(C, [*, W]);\n  Dp = blocks(D, [W, *]);", "  Cp = blocks(C, [*, 2 * W]);\n  Dp = blocks(D, [2 * W, *]);");
  t = replaced(t, "srange l in cdiv(L, W) {", "srange l in cdiv(L, 2 * W) {");
  t = replaced(t, "pipeline(3) smem(227KB);", "pipeline(2) alternate(2) smem(227KB);");
  for (int i = 0; i < 3; ++i) t = replaced(t, "tune(G=2)", "tune(G=1)");
  t = replaced(t, "tune(U=128, V=256) call(add_gemm", "tune(U=64, V=128) call(add_gemm");
  for (size_t at = t.find("tune(N_MMA=256)"); at != std::string::npos; at = t.find("tune(N_MMA=256)")) t.replace(at, 15, "tune(N_MMA=128)");
  test::CompiledMappings c = compile_mappings(t, "add_gemm");
  ASSERT_TRUE(c.error) << "compiled";
  EXPECT_TRUE(c.error->loc.valid());
  EXPECT_NE(c.error->message.find("alternate(2) with a second loop in the tile that does not continue the first's ring"),
            std::string::npos)
      << c.error->message;
  EXPECT_NE(c.error->hint.find("the teams take turns on one ring"), std::string::npos) << c.error->hint;
}

TEST(Alternate, RefusesASharedMemoryTensorTheComputeRoleWrites) {
  // gemm_reduce_shared keeps its row sums in shared memory, cleared and added to by the compute
  // warpgroups: teams running different tiles at once would share its one buffer.
  std::string t = example_text("gemm_reduce_shared");
  t = t.substr(0, t.find("\nmapping sm_90a when("));
  t = replaced(t, "tune(U=128)", "tune(U=64)");
  for (size_t at = t.find("tune(G=2)"); at != std::string::npos; at = t.find("tune(G=2)")) t.replace(at, 9, "tune(G=1)");
  t = replaced(t, "warpspecialize pipeline(3) smem(227KB);", "warpspecialize pipeline(4) alternate(2) smem(227KB);");
  test::CompiledMappings c = compile_mappings(t, "gemm_reduce_shared");
  ASSERT_TRUE(c.error) << "compiled";
  EXPECT_TRUE(c.error->loc.valid());
  EXPECT_NE(c.error->message.find("alternate(2) with a shared-memory tensor the compute role writes"), std::string::npos) << c.error->message;
  EXPECT_NE(c.error->hint.find("the teams run different tiles at once"), std::string::npos) << c.error->hint;
}

}  // namespace
}  // namespace loom
