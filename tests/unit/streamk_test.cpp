// streamk (docs/mapping.md "Stream-K", docs/codegen.md "Stream-K"; src/codegen/streamk.cpp):
// - the option parses, prints and reaches the IR loop (`streamk` on the K loop's `for`);
// - examples/gemm's default mapping made stream-K lowers to a persistent kernel of turns: an equal share of the
//   shared tiles' iterations, then whole tiles, in both roles; a turn that does not start at
//   iteration 0 stores its partial sums and releases its flag, the tile's first turn waits for the
//   later turns' flags and adds their sums in block order, and only it runs the rest of the tile;
//   the launcher plans the shares and gets the workspace; the cost estimate has the stream-K terms;
// - what the back end refuses is a located CompileError (a loop that is not a pure sum, a trip count
//   that differs between tiles); the checker's errors are tests/errors/streamk_*.loom;
// - the host plan (runtime/loom/streamk.h) shares what does not fill a wave, plus one wave.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "../../runtime/loom/streamk_plan.h"
#include "codegen_util.h"

namespace loom {
namespace {

using test::check_text;
using test::compile_mappings;
using test::count_of;
using test::example_text;
using test::replaced;

// The default mapping of examples/gemm alone, made stream-K (128 x 256 tiles, 3 stages).
std::string stream_gemm() {
  std::string t = example_text("gemm");
  t = t.substr(0, t.find("// Other tile shapes"));
  return replaced(t, "warpspecialize pipeline(3)", "warpspecialize pipeline(3) streamk");
}

TEST(StreamK, ParsesPrintsAndReachesTheLoop) {
  const std::string text = stream_gemm();
  auto r = check_text(text, "gemm.loom");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(format_program(r.program).find("warpspecialize pipeline(3) streamk\n      smem(227KB);"), std::string::npos)
      << format_program(r.program);
  test::CompiledMappings c = compile_mappings(text, "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  EXPECT_NE(c.ir.find("pipeline(3) warpspecialize streamk"), std::string::npos) << c.ir;
}

TEST(StreamK, PersistentTurnsAndHandOver) {
  test::CompiledMappings c = compile_mappings(stream_gemm(), "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  // The host header of the plan and the workspace, only in files with a streamk kernel.
  EXPECT_EQ(count_of(cu, "#include \"loom/streamk.h\"\n"), 1);
  test::CompiledMappings plain = compile_mappings(example_text("gemm"), "gemm");
  ASSERT_TRUE(plain.artifact);
  EXPECT_EQ(plain.artifact->cu.find("loom/streamk.h"), std::string::npos);
  // No cluster: plain blocks, a block-wide barrier after setup.
  EXPECT_EQ(cu.find("cluster_sync"), std::string::npos);
  EXPECT_EQ(cu.find("splitk_rank"), std::string::npos);
  // The kernel's extra arguments and the loop of turns in both roles (TMA kernel and async-copy variant).
  EXPECT_EQ(count_of(cu, "const int64_t sk_tiles,\n    const int64_t sk_iters,\n    const uint32_t sk_epoch,\n    float4* const sk_partials,\n"
                      "    uint32_t* const sk_flags) {"),
            2);
  EXPECT_EQ(count_of(cu, "const int64_t sk_base = grid_n0 * grid_n1 - sk_tiles;  // the first shared tile"), 4);
  // (both roles of both kernels, and the TMA kernel's release warp: its block's first shared turn)
  EXPECT_EQ(count_of(cu, "int64_t sk_next = static_cast<int64_t>(blockIdx.x) * sk_total / gridDim.x;"), 5);
  // Whole tiles first (waves in step), then the shared ones.
  EXPECT_EQ(count_of(cu, "if (dp_next < sk_base) {"), 4);
  EXPECT_EQ(count_of(cu, "} else if (sk_next < sk_end) {"), 4);
  EXPECT_EQ(count_of(cu, "tile = sk_base + sk_next / sk_iters;"), 4);
  EXPECT_LT(cu.find("if (dp_next < sk_base) {"), cu.find("} else if (sk_next < sk_end) {"));
  // Each turn's share of the K loop; ring positions count from the share's start.
  EXPECT_EQ(count_of(cu, "const int64_t v_k_lo = unit_lo;"), 4);
  EXPECT_EQ(count_of(cu, "const int64_t v_k_hi = loom_min(unit_hi, v_6);"), 4);
  EXPECT_EQ(count_of(cu, "for (int64_t v_k = v_k_lo; v_k < v_k_hi; ++v_k) {"), 4);
  EXPECT_EQ(count_of(cu, "v_e_1_base += (v_k_hi - v_k_lo);"), 4);
  // The hand-over: a later turn stores and releases; the first waits, adds in block order, and runs
  // the rest of the tile (the epilogue's TMA store) alone.
  EXPECT_NE(cu.find("const bool sk_first = v_k_lo == 0;"), std::string::npos);
  // The TMA kernel's warpgroups arrive after their stores and go on; warp 1 of the DMA warpgroup waits
  // for them and releases the flag of the block's first shared turn when it starts inside a tile. The
  // async-copy variant (every DMA thread copies) releases from the warpgroup, after its sync.
  EXPECT_EQ(count_of(cu, "loom::rt::named_barrier_arrive(8 + consumer_wg, 160);"), 1);
  EXPECT_EQ(count_of(cu, "if (loom::rt::warpgroup_index() == 0 && loom::rt::warp_in_warpgroup() == 1) {"), 1);
  EXPECT_NE(cu.find("if (sk_next < sk_end && sk_next % sk_iters != 0) {  // the first shared turn starts inside a tile"), std::string::npos);
  EXPECT_NE(cu.find("loom::rt::named_barrier_sync(8 + wg, 160);  // warpgroup wg's partial sums are stored"), std::string::npos);
  EXPECT_NE(cu.find("if (loom::rt::lane_id() == 0) loom::rt::streamk_flag_release(&sk_flags[static_cast<int64_t>(blockIdx.x) * 2 + wg], sk_epoch);"),
            std::string::npos);
  EXPECT_EQ(count_of(cu, "if (tid == 0) loom::rt::streamk_flag_release(&sk_flags[slot], sk_epoch);"), 1);
  EXPECT_LT(cu.find("if (tid == 0) loom::rt::streamk_flag_release(&sk_flags[slot], sk_epoch);"), cu.find("}  // namespace async_copy"));
  EXPECT_GT(cu.find("loom::rt::named_barrier_arrive(8 + consumer_wg, 160);"), cu.find("}  // namespace async_copy"));
  EXPECT_NE(cu.find("const int64_t sk_tile_end = (tile - sk_base + 1) * sk_iters;  // in the shared iterations"), std::string::npos);
  EXPECT_NE(cu.find("for (int64_t p = static_cast<int64_t>(blockIdx.x) + 1; p < gridDim.x && p * sk_total / gridDim.x < sk_tile_end; ++p) {"),
            std::string::npos);
  EXPECT_NE(cu.find("if ((p + 1) * sk_total / gridDim.x == p * sk_total / gridDim.x) continue;  // an empty share"), std::string::npos);
  EXPECT_NE(cu.find("if (tid == 0) loom::rt::streamk_flag_wait(&sk_flags[slot], sk_epoch);"), std::string::npos);
  const size_t first = cu.find("if (sk_first) {  // the rest of the tile: its first turn only");
  ASSERT_NE(first, std::string::npos);
  EXPECT_LT(first, cu.find("loom::rt::tma_store_2d(&tm_C_2", first));
  EXPECT_LT(cu.find("const bool sk_first"), cu.find("loom::rt::streamk_store(&part["));
  // The launch: the plan from the K loop's trips, the workspace of (device, stream), the arguments.
  EXPECT_NE(cu.find("const loom::host::StreamKPlan sk_plan = loom::host::streamk_plan(blocks, sk_iters, sms[device].load());"),
            std::string::npos);
  EXPECT_NE(cu.find("loom::host::streamk_workspace(device, stream, static_cast<size_t>(grid) * 131072, static_cast<size_t>(grid) * 2, &sk_ws)"),
            std::string::npos);
  EXPECT_NE(cu.find("sk_plan.sk_tiles, sk_iters, sk_ws.epoch, static_cast<float4*>(sk_ws.partials), sk_ws.flags);"), std::string::npos);
}

// examples/gemm with a stream-K candidate (its default mapping with streamk) after its others.
const char* kStreamCandidate = R"(
mapping sm_90a when(fastest) {
  instance gemm_block = gemm_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL) tune(W=64)
      call(gemm: gemm_tile, clear: clear_tile, copy: copy_tile) warpspecialize pipeline(3)
      streamk smem(227KB);
}
)";

TEST(StreamK, CostEstimateCountsTheHandOvers) {
  test::CompiledMappings c = compile_mappings(example_text("gemm") + kStreamCandidate, "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  // The candidate after examples/gemm's six mappings (128 x 256, streamk): the plan, a share of the
  // shared iterations, the block's 2 x 65536 bytes of partial sums written and up to ceil(trips /
  // share) other blocks' read.
  EXPECT_EQ(count_of(cu, "#include \"loom/streamk.h\"\n"), 1);  // a later mapping's needs reach the file head
  const size_t m6 = cu.find("namespace mapping6 {");
  ASSERT_NE(m6, std::string::npos);
  const std::string e6 = cu.substr(cu.find("double estimate_cycles(", m6));
  EXPECT_NE(e6.find("const loom::host::StreamKPlan plan = loom::host::streamk_plan(blocks, sk_iters, sms);"), std::string::npos)
      << e6.substr(0, 3000);
  EXPECT_NE(e6.find("const int64_t reads = loom_cdiv(sk_iters, loom_max(share, 1));"), std::string::npos) << e6.substr(0, 3000);
  EXPECT_NE(e6.find("static_cast<double>(1 + reads) * (131072.0 / 16.0 + 2000.0);"), std::string::npos) << e6.substr(0, 3000);
}

TEST(StreamK, OnlyASumCanBeShared) {
  std::string t = example_text("flash_attention_2");
  t = replaced(t, "warpspecialize pipeline(2) pingpong smem(227KB);", "warpspecialize pipeline(2) smem(227KB) streamk;");
  test::CompiledMappings c = compile_mappings(t, "flash_attention_2");
  ASSERT_TRUE(c.error) << "compiled";
  EXPECT_TRUE(c.error->loc.valid());
  EXPECT_NE(c.error->message.find("the CUDA back end cannot lower streamk on a loop that does more than TMA loads and tensor-core mma yet"),
            std::string::npos)
      << c.error->message;
}

TEST(StreamK, HostPlanSharesTheLastWaveAndOneMore) {
  using loom::host::streamk_plan;
  // Whole waves: nothing shared.
  EXPECT_EQ(streamk_plan(264, 48, 132).sk_tiles, 0);
  EXPECT_EQ(streamk_plan(264, 48, 132).workers, 132);
  // 144 tiles on 132 SMs: the 12 of the last wave and one wave are shared.
  EXPECT_EQ(streamk_plan(144, 48, 132).sk_tiles, 144);
  EXPECT_EQ(streamk_plan(300, 48, 132).sk_tiles, 36 + 132);
  // Fewer tiles than SMs: every tile shared, among at most one block per 4 iterations.
  EXPECT_EQ(streamk_plan(25, 74, 132).workers, 132);
  EXPECT_EQ(streamk_plan(25, 74, 132).sk_tiles, 25);
  EXPECT_EQ(streamk_plan(3, 16, 132).workers, 12);
  // Too little to share: one block per tile.
  EXPECT_EQ(streamk_plan(1, 2, 132).workers, 1);
  EXPECT_EQ(streamk_plan(1, 2, 132).sk_tiles, 0);
  EXPECT_EQ(streamk_plan(10, 1, 132).sk_tiles, 0);
  EXPECT_EQ(streamk_plan(0, 10, 132).workers, 0);
}

}  // namespace
}  // namespace loom
