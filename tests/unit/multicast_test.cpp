// multicast(S) (docs/mapping.md, docs/codegen.md "Multicast"; src/codegen/multicast.cpp):
// - the option parses, prints and reaches the IR loop (`multicast(S)` on the K loop's `for`);
// - examples/gemm's default mapping with multicast(2) lowers to a cluster kernel: rank r runs row
//   tile 2 p + r of the cluster's pair, the B panel (the same for both row tiles) is loaded a
//   share per block and multicast, A stays per block, the ring slots are freed by the compute
//   warpgroups of both blocks (wgmmas alone read the slots: one arrival per warpgroup and block,
//   init count 4, arrive_cluster per warpgroup), a cluster launch, and the estimate's
//   halved bytes and cluster slots; the async-copy variant keeps plain per-block loads;
// - a tile whose swizzle slices do not divide by S is shared by bands of rows, bands of whole 8-row
//   atoms that overlap where the atoms do not divide by S;
// - multicast(S, T): clusters of S x T tiles; B is shared by the S blocks of one column tile, A by
//   the T blocks of one row tile (masks and shares from the rank's place in the group), the blocks of
//   a block's row and column (S + T - 1) free its ring slots, and the launch and estimate count
//   groups of S x T tiles; with only one operand shared (1 x 2 shares A) every block frees every
//   block's slots;
// - what the back end refuses is a located CompileError (no load that neighbouring tiles share);
//   the checker's errors are tests/errors/multicast_*.loom.
#include <gtest/gtest.h>

#include <string>

#include "codegen_util.h"
#include "loom/machine.h"

namespace loom {
namespace {

using test::check_text;
using test::compile_mappings;
using test::count_of;
using test::example_text;
using test::replaced;

// The default mapping of examples/gemm (128 x 256 tiles, 3 stages) with multicast(S), or with
// V-wide tiles.
std::string multicast_gemm(int S, int V = 256) {
  std::string t = example_text("gemm");
  t = t.substr(0, t.find("// Other tile shapes"));
  if (V != 256) {
    t = replaced(t, "tune(U=128, V=256)", "tune(U=128, V=" + std::to_string(V) + ")");
    for (int i = 0; i < 6; ++i) t = replaced(t, "N_MMA=256", "N_MMA=" + std::to_string(V));
  }
  return replaced(t, "warpspecialize pipeline(3)", "warpspecialize pipeline(3) multicast(" + std::to_string(S) + ")");
}

TEST(Multicast, ParsesPrintsAndReachesTheLoop) {
  const std::string text = multicast_gemm(2);
  auto r = check_text(text, "gemm.loom");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(format_program(r.program).find("warpspecialize pipeline(3)\n      multicast(2) smem(227KB);"), std::string::npos)
      << format_program(r.program);
  test::CompiledMappings c = compile_mappings(text, "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  EXPECT_NE(c.ir.find("pipeline(3) warpspecialize multicast(2)"), std::string::npos) << c.ir;
}

TEST(Multicast, NeedsClusters) {
  std::string text = multicast_gemm(2);
  text = replaced(text, "mapping sm_90a {", "mapping sm_80 {");
  auto r = check_text(text, "gemm.loom");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("error: multicast(2) needs thread-block clusters, which sm_80 does not have"), std::string::npos)
      << r.diagnostics;
}

TEST(Multicast, ClusterKernel) {
  test::CompiledMappings c = compile_mappings(multicast_gemm(2), "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  const std::string tma = cu.substr(cu.find("// The TMA kernel."));
  const std::string variant = cu.substr(0, cu.find("// The TMA kernel."));
  // The cluster: rank, pairs of row tiles, barriers initialized cluster-wide, leaving together.
  EXPECT_NE(tma.find("const uint32_t mc_rank = loom::rt::cluster_rank();"), std::string::npos);
  EXPECT_EQ(count_of(tma, "const int64_t mc_groups = loom_cdiv(grid_n0, 2);"), 2);  // producer and consumer
  EXPECT_EQ(count_of(tma, "for (int64_t tile = loom::rt::cluster_id_x(); tile < mc_groups * grid_n1; tile += loom::rt::cluster_count_x()) {"), 2);
  EXPECT_EQ(count_of(tma, "const uint32_t band = static_cast<uint32_t>(loom_min(mc_groups, 4) * grid_n1), group = l32 / band, first = group * 4;"), 2);
  EXPECT_EQ(count_of(tma, "const int64_t v_i = (first + within % gsize) * 2 + mc_rank;"), 2);
  EXPECT_EQ(count_of(tma, "loom::rt::cluster_sync();"), 2);
  // B (the same for both row tiles): the whole tile expected, slices mc_rank, mc_rank + 2 issued for both.
  EXPECT_NE(tma.find("loom::rt::mbarrier::arrive_expect_tx(&bar_v_e_3[(v_e_1_base + v_k) % 3], 32768);  // the whole tile lands here"),
            std::string::npos);
  EXPECT_NE(tma.find("for (uint32_t sl = mc_rank; sl < 4; sl += 2)"), std::string::npos);
  EXPECT_NE(tma.find("loom::rt::tma_load_2d_multicast(v_B_stages + ((0) * 3 + (0 + v_slot)) * 16384 + sl * 4096, &tm_B_1, "
                     "&bar_v_e_3[(v_e_1_base + v_k) % 3], 0x3, static_cast<int32_t>((v_Bp_o1 + sl * 64)), static_cast<int32_t>(v_Bp_1_o0));"),
            std::string::npos)
      << tma;
  // A (its own rows): one box per block, as without multicast.
  EXPECT_NE(tma.find("loom::rt::tma_load_2d(v_A_stages + ((0) * 3 + (0 + v_slot)) * 8192, &tm_A_0,"), std::string::npos);
  // The ring's release: wgmmas alone read the slots, so each of the 2 compute warpgroups of each of
  // the 2 blocks arrives once in both (a wgmma retired in one warp has read for all four).
  EXPECT_NE(tma.find("loom::rt::mbarrier::init(&bar_v_w[s], 4);"), std::string::npos);
  EXPECT_EQ(count_of(tma, "loom::rt::mbarrier::arrive_cluster(&bar_v_w["), 2);  // in the loop, and after it
  EXPECT_EQ(count_of(tma, "], 2, 1, false, true, mc_rank);"), 2);                         // every block, per warpgroup
  EXPECT_NE(tma.find("compute warpgroups of every block of the cluster done with iteration k"), std::string::npos);
  // The launch: clusters of 2 over pairs of row tiles.
  EXPECT_NE(tma.find("const int64_t clusters = blocks / grid_n0 * loom_cdiv(grid_n0, 2);"), std::string::npos);
  EXPECT_NE(tma.find("attr[0].val.clusterDim.x = 2;"), std::string::npos);
  EXPECT_NE(tma.find("int64_t cluster_slots(int device) {"), std::string::npos);
  // The async-copy variant loads everything per block and launches no cluster.
  EXPECT_EQ(variant.find("multicast"), std::string::npos);
  EXPECT_EQ(variant.find("cluster"), std::string::npos);
}

TEST(Multicast, CostEstimateCountsTheShare) {
  // examples/gemm whole (when(fastest) mappings: each has an estimate), its default with multicast(2).
  const std::string text = replaced(example_text("gemm"), "warpspecialize pipeline(3)\n      smem(227KB);",
                                    "warpspecialize pipeline(3)\n      multicast(2) smem(227KB);");
  test::CompiledMappings c = compile_mappings(text, "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  // 16384 bytes of A and half of B's 32768 per block and iteration; blocks in clusters of 2.
  EXPECT_NE(cu.find("2097152 FMA and 32768 TMA bytes per iteration"), std::string::npos);
  EXPECT_NE(cu.find("const int64_t mc_blocks = blocks / grid_n0 * loom_cdiv(grid_n0, 2) * 2;"), std::string::npos);
  EXPECT_NE(cu.find("if (cudaGetDevice(&device) == cudaSuccess) slots = cluster_slots(device) * 2;"), std::string::npos);
  // The whole 49152-byte tile lands in each block: an iteration takes at least that over the intake rate.
  EXPECT_NE(cu.find("2097152 FMA and 32768 TMA bytes per iteration (49152 landing in the block: multicast)"), std::string::npos);
  EXPECT_NE(cu.find("tile += static_cast<double>(v_6) * fmax(fmax(1024, (16384.0 * fill_A + 16384.0 * fill_B) / 48.0), 49152.0 / 56.0);"),
            std::string::npos);
}

// A 128 x 128 multicast tile (examples/gemm's second mapping with multicast(2)): 32 KB land in a block
// each 512-cycle K step, more than the intake rate takes (CostModel::intake_bytes_per_cycle), so its
// estimate does not drop below the unshared tile's fill time by halving B's bytes.
TEST(Multicast, CostEstimateBoundsTheIntake) {
  const std::string text = replaced(example_text("gemm"), "tune(W=64)\n      call(gemm: gemm_tile, clear: clear_tile, copy: copy_tile) warpspecialize pipeline(4)\n      smem(227KB);",
                                    "tune(W=64)\n      call(gemm: gemm_tile, clear: clear_tile, copy: copy_tile) warpspecialize pipeline(4)\n      multicast(2) smem(227KB);");
  test::CompiledMappings c = compile_mappings(text, "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  EXPECT_NE(cu.find("1048576 FMA and 24576 TMA bytes per iteration (32768 landing in the block: multicast)"), std::string::npos);
  EXPECT_NE(cu.find("fmax(fmax(512, (16384.0 * fill_A + 8192.0 * fill_B) / 48.0), 32768.0 / 56.0)"), std::string::npos);
  EXPECT_GT(loom::hopper_machine().cost.intake_bytes_per_cycle, loom::hopper_machine().cost.fill_bytes_per_cycle);
}

TEST(Multicast, BandsOfRowsWhenSlicesDoNotDivide) {
  // 128 x 192 tiles: B's 192 columns are 3 slices of 64; 2 blocks take 32 of its 64 rows each.
  test::CompiledMappings c = compile_mappings(multicast_gemm(2, 192), "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  EXPECT_NE(cu.find("// multicast(2): this block loads rows [32 mc_rank, 32 (mc_rank + 1)) of the tile for every block of its cluster"),
            std::string::npos);
  EXPECT_EQ(count_of(cu, "loom::rt::tma_load_2d_multicast("), 3);  // one band per slice
  EXPECT_NE(cu.find("+ 4096 + mc_rank * 32 * 64, &tm_B_"), std::string::npos) << cu;
}

TEST(Multicast, OverlappingBandsWhereAtomsDoNotDivide) {
  // examples/gemm's transposed 208 x 128 tiles on 2 x 4 clusters: A's box is 208 rows of one 64-column
  // slice, 26 8-row atoms, which 4 blocks cannot share in equal whole-atom bands; each loads 7 atoms
  // (56 rows), the last band moved up to end at row 208 (rows 152-167 land twice, and the barrier
  // expects the 4 x 56 rows that land).
  std::string t = example_text("gemm");
  const size_t at = t.find("tune(U=208, V=128)");
  ASSERT_NE(at, std::string::npos);
  const size_t from = t.rfind("mapping sm_90a when(fastest) {", at), to = t.find("\n}\n", at) + 3;
  std::string m = replaced(t.substr(from, to - from), "warpspecialize pipeline(3)\n      smem(227KB);",
                           "warpspecialize pipeline(4)\n      multicast(2, 4) smem(227KB);");
  test::CompiledMappings c = compile_mappings(t.substr(0, t.find("// Other tile shapes")) + m, "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  const std::string m1 = cu.substr(cu.find("namespace mapping1 {"));
  const std::string tma = m1.substr(m1.find("// The TMA kernel."));
  EXPECT_NE(tma.find("// multicast(2, 4): this block loads rows [b, b + 56), b = min(56 mc_rn, 152), of the tile for the 4 blocks of its "
                     "cluster that share it (26 8-row atoms in 4 bands of 7)"),
            std::string::npos)
      << tma;
  EXPECT_NE(tma.find("arrive_expect_tx(&bar_v_e_2[(v_e_1_base + v_k) % 4], 28672);  // the whole tile lands here, a share from each block "
                     "of the cluster that shares it (2048 bytes twice: the bands overlap)"),
            std::string::npos);
  EXPECT_NE(tma.find(" + loom_min(mc_rn * 56, 152) * 64, &tm_A_0, &bar_v_e_2[(v_e_1_base + v_k) % 4], static_cast<uint16_t>(0x55u << mc_rm), "
                     "static_cast<int32_t>(v_Ap_1_o1), static_cast<int32_t>((v_Ap_o0 + loom_min(mc_rn * 56, 152))));"),
            std::string::npos);
  EXPECT_NE(tma.find("s.box_dims[1] = 56;"), std::string::npos);
  // Both operands shared (B by the 2 row tiles): the 3 + 2 blocks of a block's row and column free its slots.
  EXPECT_NE(tma.find("loom::rt::mbarrier::init(&bar_v_w[s], 10);"), std::string::npos);
  // The estimate: a block issues 56 of A's rows and half of B (7168 + 8192 bytes); 28672 + 16384 land.
  EXPECT_NE(tma.find("1703936 FMA and 15360 TMA bytes per iteration (45056 landing in the block: multicast)"), std::string::npos);
}

// examples/gemm's 128 x 128 tiles (its second mapping, 4 stages) on 2 x 2 clusters.
std::string multicast2d_gemm(const std::string& shape) {
  std::string t = example_text("gemm");
  const size_t from = t.find("mapping sm_90a when(fastest) {"), to = t.find("mapping sm_90a when(fastest) {", from + 1);
  std::string m = t.substr(from, to - from);
  m = replaced(m, "warpspecialize pipeline(4)\n      smem(227KB);", "warpspecialize pipeline(4)\n      multicast(" + shape + ") smem(227KB);");
  return t.substr(0, t.find("// Other tile shapes")) + m;
}

TEST(Multicast, TwoDimensionalClusters) {
  const std::string text = multicast2d_gemm("2, 2");
  auto r = check_text(text, "gemm.loom");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(format_program(r.program).find("multicast(2, 2) smem(227KB);"), std::string::npos) << format_program(r.program);
  test::CompiledMappings c = compile_mappings(text, "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  EXPECT_NE(c.ir.find("warpspecialize multicast(2, 2)"), std::string::npos) << c.ir;
  const std::string& cu = c.artifact->cu;
  const std::string m1 = cu.substr(cu.find("namespace mapping1 {"));
  const std::string tma = m1.substr(m1.find("// The TMA kernel."));
  // The rank's place in the 2 x 2 group, which the tile decode and the shares read.
  EXPECT_NE(tma.find("const uint32_t mc_rm = mc_rank % 2u, mc_rn = mc_rank / 2u;"), std::string::npos) << tma;
  EXPECT_EQ(count_of(tma, "const int64_t mc_groups_n = loom_cdiv(grid_n1, 2);"), 2);  // producer and consumer
  EXPECT_EQ(count_of(tma, "tile < mc_groups * mc_groups_n; tile += loom::rt::cluster_count_x()) {"), 2);
  EXPECT_EQ(count_of(tma, "const int64_t v_i = (first + within % gsize) * 2 + mc_rm;"), 2);
  EXPECT_EQ(count_of(tma, "const int64_t v_j = (within / gsize) * 2 + mc_rn;"), 2);
  // A (the same for the two column tiles of a row): rows [64 rn, 64 rn + 64) to ranks rm and rm + 2.
  EXPECT_NE(tma.find("// multicast(2, 2): this block loads rows [64 mc_rn, 64 (mc_rn + 1)) of the tile for the 2 blocks of its cluster that share it"),
            std::string::npos);
  EXPECT_NE(tma.find("&tm_A_0, &bar_v_e_2[(v_e_1_base + v_k) % 4], static_cast<uint16_t>(0x5u << mc_rm), "), std::string::npos) << tma;
  // B (the same for the two row tiles of a column): slice rm to ranks 2 rn and 2 rn + 1.
  EXPECT_NE(tma.find("// multicast(2, 2): this block loads slice mc_rm of the tile for the 2 blocks of its cluster that share it"),
            std::string::npos);
  EXPECT_NE(tma.find("&tm_B_1, &bar_v_e_3[(v_e_1_base + v_k) % 4], static_cast<uint16_t>(0x3u << (mc_rn * 2u)), "), std::string::npos) << tma;
  // Both operands shared: the 2 compute warpgroups of the 3 blocks of a block's row and column
  // (itself, the other row tile of its column, the other column tile of its row) free its slots.
  EXPECT_NE(tma.find("loom::rt::mbarrier::init(&bar_v_w[s], 6);"), std::string::npos) << tma;
  EXPECT_EQ(count_of(tma, "loom::rt::mbarrier::arrive_cluster(&bar_v_w["), 2);
  EXPECT_EQ(count_of(tma, "], 2, 2, true, true, mc_rank);"), 2);  // the row and column, per warpgroup
  EXPECT_NE(tma.find("compute warpgroups of the blocks of this block's cluster row and column done with iteration k"), std::string::npos);
  // The launch and the estimate: groups of 2 x 2 tiles, clusters of 4.
  EXPECT_NE(tma.find("const int64_t clusters = blocks / grid_n0 / grid_n1 * loom_cdiv(grid_n0, 2) * loom_cdiv(grid_n1, 2);"), std::string::npos);
  EXPECT_NE(tma.find("attr[0].val.clusterDim.x = 4;"), std::string::npos);
  EXPECT_NE(tma.find("const int64_t mc_blocks = blocks / grid_n0 / grid_n1 * loom_cdiv(grid_n0, 2) * loom_cdiv(grid_n1, 2) * 4;"),
            std::string::npos);
  // Each block issues half of A's 16384 and of B's 16384 bytes a K step; the whole 32768 land in it.
  EXPECT_NE(tma.find("1048576 FMA and 16384 TMA bytes per iteration (32768 landing in the block: multicast)"), std::string::npos) << tma;
}

TEST(Multicast, OneByTwoSharesOnlyA) {
  test::CompiledMappings c = compile_mappings(multicast2d_gemm("1, 2"), "gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  const std::string m1 = cu.substr(cu.find("namespace mapping1 {"));
  EXPECT_EQ(count_of(m1, "loom::rt::tma_load_2d_multicast("), 1) << m1;  // A's rows; B per block
  EXPECT_NE(m1.find("static_cast<uint16_t>(0x3u << mc_rm)"), std::string::npos);
  EXPECT_NE(m1.find("attr[0].val.clusterDim.x = 2;"), std::string::npos);
  // One row tile per cluster: every block is in the block's row, the release cluster-wide (both
  // blocks, 2 warpgroups each).
  EXPECT_NE(m1.find("loom::rt::mbarrier::init(&bar_v_w[s], 4);"), std::string::npos);
  EXPECT_EQ(count_of(m1, "], 1, 2, false, true, mc_rank);"), 2);
}

TEST(Multicast, WarpsReleaseWhatTheyReadThemselves) {
  // relu_gemm's warps load A's fragments from the slot with ldmatrix (its prologue) before their
  // wgmma: a warp's own reads, so every compute warp arrives (per warp, count x 4), not one per
  // warpgroup.
  test::CompiledMappings c = compile_mappings(example_text("relu_gemm"), "relu_gemm");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string& cu = c.artifact->cu;
  EXPECT_GT(count_of(cu, "loom::rt::mbarrier::arrive_cluster(&"), 0);
  EXPECT_EQ(count_of(cu, "loom::rt::mbarrier::arrive_cluster(&"), count_of(cu, ", 2, 1, false, false, mc_rank);"));  // all per warp
  EXPECT_NE(cu.find("compute warps of every block of the cluster done with iteration k"), std::string::npos);
}

TEST(Multicast, TwoDimensionalClustersAtMostEightBlocks) {
  auto r = check_text(multicast2d_gemm("4, 4"), "gemm.loom");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("error: multicast(4, 4): a cluster of 4 x 4 blocks; the second extent must be at least 1 and the product "
                               "at most 8 (the blocks of a portable cluster on sm_90a)"),
            std::string::npos)
      << r.diagnostics;
}

TEST(Multicast, NeedsALoadNeighbouringTilesShare) {
  // flash attention's grid is (batch x head, Q tile): its K and V tiles move with the batch x head
  // index the cluster's blocks differ in.
  std::string t = example_text("flash_attention_2");
  t = replaced(t, "warpspecialize pipeline(2) pingpong smem(227KB);", "warpspecialize pipeline(2) pingpong multicast(2) smem(227KB);");
  test::CompiledMappings c = compile_mappings(t, "flash_attention_2");
  ASSERT_TRUE(c.error) << "compiled";
  EXPECT_TRUE(c.error->loc.valid());
  EXPECT_NE(c.error->message.find("the CUDA back end cannot lower multicast(2) on a loop none of whose TMA loads is the same for "
                                  "neighbouring tiles along"),
            std::string::npos)
      << c.error->message;
  EXPECT_NE(c.error->hint.find("it needs an operand that does not depend on that block index"), std::string::npos) << c.error->hint;
}

}  // namespace
}  // namespace loom
