// splitk(S) (docs/mapping.md "Split-K", docs/codegen.md "Split-K"; src/codegen/splitk.cpp):
// - the option parses, prints and reaches the IR loop (`splitk(S)` on the K loop's `for`);
// - examples/gemm's split candidates lower to a cluster kernel: a share of the K loop per cluster
//   rank, rings counted from the share's start, the partial sums handed to the owner of each
//   warpgroup's rows and added in rank order, the epilogue guarded by ownership, a cluster launch,
//   and the cost estimate's split terms;
// - what the back end refuses is a located CompileError (a loop that is not a pure sum, a budget
//   the partial-sum buffers do not fit); the checker's errors are tests/errors/splitk_*.loom.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "codegen_util.h"

namespace loom {
namespace {

using test::check_text;
using test::compile_mappings;
using test::count_of;
using test::example_text;
using test::replaced;

// The default mapping of examples/gemm made a split-K one (128 x 128 tiles, 4 stages, S blocks).
std::string split_gemm(int S, int pipeline = 4, int V = 128) {
  std::string t = example_text("gemm");
  t = t.substr(0, t.find("// Other tile shapes"));
  t = replaced(t, "tune(U=128, V=256)", "tune(U=128, V=" + std::to_string(V) + ")");
  for (int i = 0; i < 6; ++i) t = replaced(t, "N_MMA=256", "N_MMA=" + std::to_string(V));
  return replaced(t, "warpspecialize pipeline(3)", "warpspecialize pipeline(" + std::to_string(pipeline) + ") splitk(" +
                                                        std::to_string(S) + ")");
}

TEST(SplitK, ParsesPrintsAndReachesTheLoop) {
  const std::string text = split_gemm(4);
  auto r = check_text(text, "gemm.loom");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(format_program(r.program).find("warpspecialize pipeline(4)\n      splitk(4) smem(227KB);"), std::string::npos)
      << format_program(r.program);
  test::CompiledMappings c = compile_mappings(text, "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  EXPECT_NE(c.ir.find("pipeline(4) warpspecialize splitk(4)"), std::string::npos) << c.ir;
}

TEST(SplitK, NeedsClusters) {
  std::string text = split_gemm(2);
  text = replaced(text, "mapping sm_90a {", "mapping sm_80 {");
  auto r = check_text(text, "gemm.loom");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("error: splitk(2) needs thread-block clusters, which sm_80 does not have"), std::string::npos)
      << r.diagnostics;
  EXPECT_NE(r.diagnostics.find("hint: remove splitk, or map for sm_90a"), std::string::npos) << r.diagnostics;
}

TEST(SplitK, ClusterKernel) {
  test::CompiledMappings c = compile_mappings(split_gemm(2), "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  // The cluster: rank, tiles by cluster, barriers initialized cluster-wide, leaving together.
  EXPECT_NE(cu.find("const uint32_t splitk_rank = loom::rt::cluster_rank();"), std::string::npos);
  EXPECT_NE(cu.find("for (int64_t tile = loom::rt::cluster_id_x(); tile < grid_n0 * grid_n1; tile += loom::rt::cluster_count_x()) {"),
            std::string::npos);
  EXPECT_EQ(count_of(cu, "loom::rt::cluster_sync();"), 4);  // setup and exit, TMA kernel and async-copy variant
  EXPECT_EQ(cu.find("__syncthreads();"), std::string::npos);
  // Each block's share of the K loop, in both roles; ring positions count from the share's start.
  EXPECT_EQ(count_of(cu, "const int64_t v_k_lo = v_6 * splitk_rank / 2;"), 4);
  EXPECT_EQ(count_of(cu, "for (int64_t v_k = v_k_lo; v_k < v_k_hi; ++v_k) {"), 4);
  EXPECT_NE(cu.find("const int64_t v_slot = (v_e_1_base + v_k - v_k_lo) % v_c4;  // ring slot"), std::string::npos);
  EXPECT_NE(cu.find("if (v_k > v_k_lo) {"), std::string::npos);
  EXPECT_EQ(count_of(cu, "v_e_1_base += (v_k_hi - v_k_lo);"), 4);
  // The hand-over, a tree over the blocks' places counted from the owner of a warpgroup's rows
  // (one level for S = 2): a ready barrier per warpgroup and level, a free barrier per warpgroup;
  // the sender stores and arrives remotely and waits for the previous tile's read only before it
  // writes again; the receiver adds every load of a batch after its own sum, then frees the
  // sender's buffer; the rest of the tile is the owner's.
  EXPECT_NE(cu.find("for (int s = 0; s < 2; ++s) loom::rt::mbarrier::init(&bar_splitk_ready[s], 128);"), std::string::npos);
  EXPECT_NE(cu.find("for (int s = 0; s < 2; ++s) loom::rt::mbarrier::init(&bar_splitk_free[s], 128);"), std::string::npos);
  EXPECT_NE(cu.find("const uint32_t splitk_place = (splitk_rank + 2 - splitk_owner) % 2;"), std::string::npos);
  EXPECT_NE(cu.find("for (uint32_t l = 0; l < 1; ++l) {"), std::string::npos);
  const size_t send = cu.find("if (splitk_place & half) {");
  ASSERT_NE(send, std::string::npos);
  const size_t wait_free = cu.find("if (tile_iter > 0) loom::rt::mbarrier::wait_cluster(&bar_splitk_free[consumer_wg], (tile_iter - 1) & 1);", send);
  const size_t store = cu.find("part[(0 + q) * 128 + tid] = make_float4(", send);
  const size_t hand = cu.find("loom::rt::mbarrier::arrive_peer(&bar_splitk_ready[consumer_wg * 1 + l], (splitk_rank + 2 - half) % 2);", send);
  EXPECT_LT(send, wait_free);
  EXPECT_LT(wait_free, store);
  EXPECT_LT(store, hand);
  const size_t recv = cu.find("if (splitk_place + half < 2) {", send);
  EXPECT_LT(hand, recv);
  EXPECT_NE(cu.find("loom::rt::mbarrier::wait_cluster(&bar_splitk_ready[consumer_wg * 1 + l], tile_iter & 1);", recv), std::string::npos);
  EXPECT_NE(cu.find("for (int j = 0; j < 16; ++j) v[j] = loom::rt::ld_peer_f32x4(peer + ((0 + q0 + j) * 128 + tid) * 16);", recv),
            std::string::npos);  // a 64 x 128 fragment's 16 quadruples in flight at once
  EXPECT_NE(cu.find("v_C_1[4 * q] += v[j].x;", recv), std::string::npos);
  EXPECT_NE(cu.find("loom::rt::mbarrier::arrive_peer(&bar_splitk_free[consumer_wg], from);  // read", recv), std::string::npos);
  EXPECT_NE(cu.find("if (splitk_place == 0) {  // the rest of the tile: the owner's warpgroup only"), std::string::npos);
  const size_t owner = cu.find("if (splitk_place == 0) {");
  EXPECT_LT(owner, cu.find("loom::rt::tma_store_2d(&tm_C_2", owner - 1));
  // The launch: a cluster of 2 per tile, as many clusters as fit (cluster_slots, which the cost
  // estimate asks too).
  EXPECT_NE(cu.find("int64_t cluster_slots(int device) {"), std::string::npos);
  EXPECT_NE(cu.find("cudaOccupancyMaxActiveClusters(&fit, gemm_kernel, &occ) != cudaSuccess || fit <= 0) {"), std::string::npos);
  EXPECT_NE(cu.find("const int64_t clusters = blocks;\n  if (clusters > 2147483647 / 2) return LOOM_ERR_SHAPE;\n"
                    "  const int64_t fit = cluster_slots(device);\n  const int64_t grid = (fit > 0 && clusters > fit ? fit : clusters) * 2;"),
            std::string::npos);
  EXPECT_EQ(count_of(cu, "attr[0].val.clusterDim.x = 2;"), 4);
  EXPECT_NE(cu.find("if (cudaLaunchKernelEx(&cfg, gemm_kernel, C, A, B, tm_A_0, tm_B_1, tm_C_2, grid_n0, grid_n1) != cudaSuccess) {"),
            std::string::npos);
}

TEST(SplitK, CostEstimateCountsTheSplit) {
  std::string text = example_text("gemm");
  test::CompiledMappings c = compile_mappings(text, "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  // Mapping 3 (128 x 128, splitk(2)): half the K steps per block, the owner reads one peer's 64 x 128
  // floats (32768 bytes at 32 per cycle) plus the hand-over; as many tiles at once as the launch
  // runs clusters (cluster_slots), floor(SMS / 2) when the runtime cannot say.
  const size_t m3 = cu.find("namespace mapping3 {");
  const std::string e3 = cu.substr(cu.find("double estimate_cycles(", m3));
  EXPECT_EQ(e3.find("tile += static_cast<double>(loom_cdiv(v_6, 2)) * fmax(512, (16384.0 * fill_A + 16384.0 * fill_B) / 48.0);"),
            e3.find("tile += static_cast<double>(loom_cdiv(v_6, 2))"));
  EXPECT_NE(e3.find("tile += 32768.0 / 32.0 + 8000.0;"), std::string::npos) << e3.substr(0, 3000);
  EXPECT_NE(e3.find("if (cudaGetDevice(&device) == cudaSuccess) slots = cluster_slots(device);"), std::string::npos);
  EXPECT_NE(e3.find("if (slots <= 0) slots = sms / 2 > 0 ? sms / 2 : 1;"), std::string::npos);
  // Mapping 5 (128 x 64, splitk(4)): a tree of two levels, so the owner reads two 64 x 64 float
  // sums for the one warpgroup a block owns.
  const size_t m5 = cu.find("namespace mapping5 {");
  const std::string e5 = cu.substr(cu.find("double estimate_cycles(", m5));
  EXPECT_NE(e5.find("tile += 32768.0 / 32.0 + 8000.0;"), std::string::npos) << e5.substr(0, 3000);
  EXPECT_NE(e5.find("* 1.0 / 2.0;"), std::string::npos);  // writes: 1 of 2 warpgroups' rows
}

TEST(SplitK, OnlyASumCanBeSplit) {
  // flash attention's K/V loop rescales its running max and sums: not a sum of products.
  std::string t = example_text("flash_attention_2");
  t = replaced(t, "warpspecialize pipeline(2) pingpong smem(227KB);", "warpspecialize pipeline(2) smem(227KB) splitk(2);");
  test::CompiledMappings c = compile_mappings(t, "flash_attention_2");
  ASSERT_TRUE(c.error) << "compiled";
  EXPECT_TRUE(c.error->loc.valid());
  EXPECT_NE(c.error->message.find("the CUDA back end cannot lower splitk(2) on a loop that does more than TMA loads and tensor-core mma yet"),
            std::string::npos)
      << c.error->message;
  EXPECT_NE(c.error->hint.find("only a sum can be split between blocks"), std::string::npos) << c.error->hint;
  // The running maximum is carried from one K/V tile to the next: not the iteration's own work.
  EXPECT_NE(c.error->hint.find("which outlives the iteration"), std::string::npos) << c.error->hint;
}

TEST(SplitK, AnOperandPrologueSplitsWithTheLoop) {
  // relu_gemm's relu on each K step's tile of A writes only R, allocated inside the loop: every
  // block of a cluster rectifies its own share of the K steps, and the owner adds the partial sums.
  test::CompiledMappings c = compile_mappings(example_text("relu_gemm"), "relu_gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  size_t split_kernels = 0;
  for (size_t at = cu.find("namespace mapping"); at != std::string::npos; at = cu.find("namespace mapping", at + 1)) {
    const std::string m = cu.substr(at, cu.find("namespace mapping", at + 1) - at);
    if (m.find("bar_splitk_ready") == std::string::npos) continue;
    ++split_kernels;
    EXPECT_NE(m.find("loom::rt::relu_pair<__nv_bfloat16>("), std::string::npos) << "a split kernel without the prologue";
  }
  EXPECT_EQ(split_kernels, 3u) << "examples/relu_gemm's three split-K candidates";
}

TEST(SplitK, PartialSumBuffersMustFitTheBudget) {
  // 128 x 256 tiles: 128 KB of partial sums next to three 48 KB stages.
  test::CompiledMappings c = compile_mappings(split_gemm(2, 3, 256), "gemm");
  ASSERT_TRUE(c.error) << "compiled";
  EXPECT_TRUE(c.error->loc.valid());
  EXPECT_EQ(c.error->message.find("splitk(2) needs "), 0u) << c.error->message;
  EXPECT_NE(c.error->message.find("bytes of shared memory with its partial-sum buffers (2 x 65536 bytes), over the budget of 232448"),
            std::string::npos)
      << c.error->message;
  EXPECT_NE(c.error->hint.find("a lower pipeline(N) or a smaller tile"), std::string::npos);
}

}  // namespace
}  // namespace loom
