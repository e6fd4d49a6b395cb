// Tests of the CUDA back end on the examples other than the plain GEMM (src/codegen/; docs/codegen.md):
// facts on batched_gemm, add_gemm, dual_gemm, the fused epilogues and FlashAttention-2 (the ping-pong
// rotation, the softmax in registers); programs the back end cannot lower yet (or the middle end
// rejects) give a CompileError with a location, never an InternalError or a crash. Helpers:
// codegen_test_util.h; the GEMM's goldens and facts: codegen_test.cpp.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "codegen_test_util.h"

namespace loom {
namespace {

using namespace codegen_test;

TEST(Codegen, BatchedGemmFacts) {
  codegen::CudaArtifact a = artifact_of("batched_gemm");
  EXPECT_NE(a.header.find("int loom_batched_gemm(loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream);"),
            std::string::npos)
      << a.header;
  // The batch is one more grid dimension and one more TMA coordinate. Boxes per K step: the default's
  // A tile (1) and B's four 64-column swizzle slices; the 128 x 128 candidate's A and two slices of
  // B; the 128 x 64 candidate's A in two 64-column slices (128-deep K steps) and B.
  EXPECT_EQ(count(between(a.cu, "namespace mapping0 {", "}  // namespace mapping0"), "loom::rt::tma_load_3d("), 5);
  EXPECT_EQ(count(between(a.cu, "namespace mapping1 {", "}  // namespace mapping1"), "loom::rt::tma_load_3d("), 3);
  EXPECT_EQ(count(between(a.cu, "namespace mapping2 {", "}  // namespace mapping2"), "loom::rt::tma_load_3d("), 3);
  EXPECT_EQ(count(a.cu, "loom::rt::tma_load_2d("), 0);
  EXPECT_NE(a.cu.find("const int64_t blocks = grid_n0 * grid_n1 * grid_n2;"), std::string::npos);
  EXPECT_EQ(count(a.cu, "double estimate_cycles("), 14);  // thirteen when(fastest) candidates (three split-K, three multicast) and the default
  EXPECT_EQ(count(a.cu, "extern \"C\""), 7);  // loom_<entry>, its _mapping, _pick, _tune, _estimates, _mappings and _info
  // Its own kernel and launcher names: both kernels link into one program.
  EXPECT_NE(a.cu.find("batched_gemm_kernel("), std::string::npos);
  EXPECT_NE(a.cu.find("int launch_batched_gemm("), std::string::npos);
}

// add_gemm (E = A B + C D): the L loop continues the K loop's ring (rings.cpp): one running
// counter, the K loop's TMA and release barriers. The producer's first copies of the L loop refill
// slots the K loop read: the ring's release barrier orders them (the counter runs on), so it does not
// wait for the consumers to finish the K loop (sync.cpp, dma_conflicts) and loads the L loop's first
// slots while they do.
TEST(Codegen, AddGemmOneRingForBothLoops) {
  codegen::CudaArtifact a = tma_kernels(artifact_of("add_gemm"));
  a.cu = between(a.cu, "namespace mapping0 {", "}  // namespace mapping0");  // the default's 128 x 256 tiles
  auto has = [&](const std::string& s) { return a.cu.find(s) != std::string::npos; };
  EXPECT_EQ(count(a.cu, "int64_t v_e_1_base = 0;"), 2);  // one counter per role, none for the L loop
  EXPECT_FALSE(has("v_e_6_base"));
  EXPECT_EQ(count(a.cu, "mbarrier::init(&bar_"), 3);  // release, two TMA rings
  EXPECT_TRUE(has("const int64_t v_slot_1 = (v_e_1_base + v_l) % v_c3;  // ring slot"));
  EXPECT_FALSE(has("(once per tile)"));
  EXPECT_TRUE(has("if ((v_e_1_base + v_l) >= 3) loom::rt::mbarrier::wait(&bar_v_w[((v_e_1_base + v_l) - 3) % 3]"));
  EXPECT_TRUE(has("&tm_C_2, &bar_v_e_2[(v_e_1_base + v_l) % 3]"));
  EXPECT_TRUE(has("loom::rt::mbarrier::wait(&bar_v_e_3[(v_e_1_base + v_l) % 3], ((v_e_1_base + v_l) / 3) & 1);"));
  EXPECT_TRUE(has("loom_stage"));  // 144 KB of rings leave room for the staged epilogue
}

// add_gemm's 128 x 256 multicast candidate (mapping 7): the cluster's blocks share B's tiles in the K
// loop and D's in the L loop, each loaded once into both blocks' ring (the L loop continuing the K
// loop's slots and barriers).
TEST(Codegen, AddGemmMulticastSharesBothLoopsColumnPanels) {
  codegen::CudaArtifact a = tma_kernels(artifact_of("add_gemm"));
  const std::string m7 = between(a.cu, "namespace mapping7 {", "}  // namespace mapping7");
  EXPECT_EQ(count(m7, "loom::rt::tma_load_2d_multicast("), 2);
  EXPECT_NE(m7.find("&tm_B_1, &bar_v_e_3[(v_e_1_base + v_k) % 4], 0x3,"), std::string::npos);
  EXPECT_NE(m7.find("&tm_D_3, &bar_v_e_3[(v_e_1_base + v_l) % 4], 0x3,"), std::string::npos);
}

// ---- what the back end cannot lower yet ------------------------------------------------------------

// dual_gemm (a gated MLP): two accumulators per thread, two wgmma groups per K step, the SiLU-gated
// product stored from the registers.
TEST(Codegen, DualGemmFacts) {
  codegen::CudaArtifact a = tma_kernels(artifact_of("dual_gemm"));
  EXPECT_EQ(count(a.cu, "loom::rt::wgmma_commit();"), 2);
  EXPECT_EQ(count(a.cu, "loom::rt::wgmma_wait<2>();"), 1);  // two groups per iteration may run
  EXPECT_EQ(count(a.cu, "loom::rt::wgmma_wait<0>();"), 1);  // only after the loop
  EXPECT_NE(a.cu.find("loom::rt::silu_fast("), std::string::npos);  // silu: ex2.approx and a fast division
  EXPECT_NE(a.cu.find("int loom_dual_gemm(loom_tensor D, loom_tensor A, loom_tensor B1, loom_tensor B2, cudaStream_t stream)"),
            std::string::npos);
}

// The epilogue's global inputs (operands.cpp): gemm_bias_act's bias is loaded once per tile into
// N / 2 registers (a pair per 4 accumulator registers), never in the K loop.
TEST(Codegen, BiasLoadedOncePerTileInPairs) {
  codegen::CudaArtifact a = artifact_of("gemm_bias_act");
  const std::string k0 = between(a.cu, "namespace mapping0 {", "}  // namespace mapping0");
  ASSERT_FALSE(k0.empty());
  EXPECT_NE(k0.find("float v_bp_1_v[64];"), std::string::npos);  // 128 x 256 tile: 64 columns per thread
  // 32 pairs, all issued before any is converted (runtime.cuh, ldg_col_pairs)
  EXPECT_NE(k0.find("loom::rt::ldg_col_pairs<32>(v_bp_1_p, v_bp_1_t, bias.stride[0], v_bp_1_e, v_bp_1_v);"), std::string::npos);
  EXPECT_NE(k0.find("v_bp_1_v[((r) >> 2) * 2 + ((r) & 1)]"), std::string::npos);
  EXPECT_EQ(count(k0, "__ldg("), 0);  // only through ldg_col_pairs
  EXPECT_NE(k0.find("loom::rt::gelu_tanh("), std::string::npos);
}

// The cost model counts the epilogue's element-wise work (estimate.cpp, elementwise.cpp's
// element_work): GELU is two special-function operations an element (ex2 and a fast reciprocal, 16
// per SM and cycle), so 4096 cycles on a 128 x 256 tile, which the tensor cores wait for; the
// ping-pong candidate's 128 x 128 tile (2048) runs under the other team's main loop, so it costs only
// where it is longer than that, and once for the block's last tile. An identity epilogue is the bias
// add's ALU work alone (128 per SM and cycle: 256 on the 128 x 256 tile).
TEST(Codegen, EstimateCountsTheEpiloguesElementwiseWork) {
  codegen::CudaArtifact a = artifact_of("gemm_bias_act");
  const std::string m0 = between(a.cu, "namespace mapping0 {", "}  // namespace mapping0");
  EXPECT_NE(m0.find("  tile += 4096;  // the epilogue's element-wise work (max of special-function and ALU cycles)\n"), std::string::npos) << m0;
  const std::string pp = between(a.cu, "namespace mapping12 {", "}  // namespace mapping12");
  ASSERT_NE(pp.find("alternate(2)"), std::string::npos);
  EXPECT_NE(pp.find("  tile = fmax(tile, 2048);  // alternate(2): the epilogue's element-wise work runs under the next tile's main loop\n"
                    "  fixed += 2048;\n"),
            std::string::npos)
      << pp;
  Generated g = generate("gemm_bias_act", example_edited("gemm_bias_act", "act_thread = bias_gelu_thread on", "act_thread = bias_thread on"));
  ASSERT_TRUE(g.artifact.has_value()) << g.diagnostics << g.internal;
  const std::string id0 = between(g.artifact->cu, "namespace mapping0 {", "}  // namespace mapping0");
  EXPECT_NE(id0.find("  tile += 256;  // the epilogue's element-wise work"), std::string::npos) << id0;
}

// gelu_fast (docs/language.md): the same function as gelu on the CPU, one tanh.approx on the GPU
// (runtime.cuh, gelu_fast), so the cost model counts one special-function operation an element:
// 2048 cycles on a 128 x 256 tile against gelu's 4096.
TEST(Codegen, GeluFastIsOneTanhApproxAnElement) {
  Generated g = generate("gemm_bias_act",
                         example_edited("gemm_bias_act", "act_thread = bias_gelu_thread on", "act_thread = bias_gelu_fast_thread on"));
  ASSERT_TRUE(g.artifact.has_value()) << g.diagnostics << g.internal;
  const std::string m0 = between(g.artifact->cu, "namespace mapping0 {", "}  // namespace mapping0");
  EXPECT_NE(m0.find("loom::rt::gelu_fast("), std::string::npos);
  EXPECT_EQ(m0.find("loom::rt::gelu_tanh("), std::string::npos);
  EXPECT_NE(m0.find("  tile += 2048;  // the epilogue's element-wise work"), std::string::npos) << m0;
}

// gemm_residual's C staged in SHARED (smem_fragments.cpp): the DMA role TMA-loads the tile after the
// K loop's loads, the consumers wait on its barrier, read their fragments with ldmatrix and free the
// buffer for the next tile; the epilogue is one fused multiply-add an element (axpy); a shared tile
// without the 128-byte swizzle is a located user error.
TEST(Codegen, ResidualReadFromSharedWithLdmatrix) {
  codegen::CudaArtifact a = artifact_of("gemm_residual");
  const std::string m0 = between(a.cu, "namespace mapping0 {", "}  // namespace mapping0");  // 128 x 128 tiles
  EXPECT_EQ(count(m0, "&tm_C_2, &bar_v_e_6[0]"), 2);  // two 64-column boxes of the 128 x 128 tile
  EXPECT_NE(m0.find("loom::rt::mbarrier::wait(&bar_v_e_6[0], tile_iter & 1);"), std::string::npos);
  EXPECT_NE(m0.find("loom::rt::ldmatrix_x4(base + loom::rt::k_major_offset(loom::Swizzle::B128, 128, mrow, col0 + 8 * c), w);"),
            std::string::npos);
  EXPECT_NE(m0.find("loom::rt::mbarrier::arrive(&bar_free_v_e_6[0]);"), std::string::npos);
  EXPECT_NE(m0.find("fmaf(static_cast<float>(v_C_3[4 * c]), v_alpha, v_C_1[4 * c])"), std::string::npos);
  std::string text = read_file(example_path("gemm_residual"));
  const std::string from = "layout(C: row_major swizzle128)";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "layout(C: row_major swizzle64)");
  Generated g = generate("gemm_residual", text);
  ASSERT_TRUE(g.error.has_value()) << g.internal;
  EXPECT_TRUE(g.error->loc.valid());
  EXPECT_EQ(g.error->message,
            "the CUDA back end cannot lower a shared -> register copy from a shared tile without the row-major 128-byte swizzle yet "
            "(from `res_warp: residual(Dp[t], Xp[t], Cp[t], alpha)`)");
}

// `pingpong` on the hand-pipelined FlashAttention-3 loop (its scores carried into the next
// iteration) is a located user error (pingpong.cpp), never an internal error or a kernel.
TEST(Codegen, PingpongOnAHandPipelinedLoopIsRefused) {
  Generated g = generate("flash_attention_3", test::unsupported_program_text());
  ASSERT_TRUE(g.checked) << g.diagnostics;
  EXPECT_TRUE(g.internal.empty()) << g.internal;
  EXPECT_FALSE(g.artifact);
  ASSERT_TRUE(g.error.has_value());
  EXPECT_TRUE(g.error->loc.valid()) << g.error->message;
  EXPECT_NE(g.error->message.find("`pingpong` on a loop whose first wgmma"), std::string::npos) << g.error->message;
}

// FA2's `pingpong` (pingpong.cpp): the two compute warpgroups take turns; pv of key tile j - 1 is
// deferred into the turn of qk of tile j (P's A fragments declared before the loop), the ring slot
// of j - 1 released after the wait that follows that turn, the last pv after the loop.
TEST(Codegen, FlashAttention2PingpongRotation) {
  codegen::CudaArtifact a = tma_kernels(artifact_of("flash_attention_2"));
  auto has = [&](const std::string& s) { return a.cu.find(s) != std::string::npos; };
  // Per kernel (D = 128 and the D <= 64 and D > 128 specializations): the loop's turn (in the
  // whole-tile and the clipped copy of the body, whole_tiles.cpp), the last pv's.
  EXPECT_EQ(count(a.cu, "loom::rt::named_barrier_sync(3 + consumer_wg, 256);"), 9);
  EXPECT_EQ(count(a.cu, "loom::rt::named_barrier_arrive(3 + (consumer_wg + 1) % 2, 256);"), 9);
  EXPECT_TRUE(has("if (consumer_wg == 1) loom::rt::named_barrier_arrive(3, 256);"));
  EXPECT_TRUE(has("if (consumer_wg == 0) loom::rt::named_barrier_sync(3, 256);  // pingpong: the last hand-over"));
  EXPECT_TRUE(has("if (v_j > 0) {  // pv_thread: mma(C, A, B) of iteration v_j - 1 (pingpong: deferred into this turn)"));
  EXPECT_TRUE(has("const int64_t v_j = v_j_deferred;"));
  EXPECT_TRUE(has("{  // pv_thread: mma(C, A, B) of iteration v_6 - 1 (pingpong: deferred into this turn)"));
  EXPECT_TRUE(has("if (v_j > 0) {  // iteration v_j - 1's deferred mma has run: release it"));
  EXPECT_FALSE(has("loom::rt::wgmma_wait<2>();")) << "a rotated loop releases after its first wait, not one iteration late";
  // The A fragments live across the back edge: declared once, before the loop.
  const size_t decl = a.cu.find("uint32_t v_A_1[32];"), loop = a.cu.find("for (int64_t v_j = 0;", a.cu.find("// ---- consumer"));
  ASSERT_NE(decl, std::string::npos);
  EXPECT_LT(decl, loop);
  EXPECT_GT(decl, a.cu.find("// ---- consumer"));
}

// An attention example with `pingpong(double_buffer)` on every mapping's block instance (in place
// of flash_attention_2's `pingpong`; added to flash_attention_3's, which has none).
std::string double_buffered(const std::string& example) {
  const std::string text = test::example_text(example);
  return text.find("warpspecialize pipeline(2) pingpong smem") != std::string::npos
             ? test::replaced_all(text, "warpspecialize pipeline(2) pingpong smem", "warpspecialize pipeline(2) pingpong(double_buffer) smem")
             : test::replaced_all(text, "warpspecialize pipeline(2) smem", "warpspecialize pipeline(2) pingpong(double_buffer) smem");
}

// pingpong(double_buffer) (pingpong.cpp, double_buffer_loop): P's A fragments in two copies; the
// rotated loop peeled (iteration 0 with the empty group) and unrolled by two, so that the pack of
// P(k) never writes the copy the deferred P V of k - 1 reads; no guarded deferred mma is left.
TEST(Codegen, FlashAttention2DoubleBufferedTurns) {
  const std::string text = double_buffered("flash_attention_2");
  Generated g = generate("flash_attention_2", text);
  ASSERT_TRUE(g.artifact) << g.diagnostics << (g.error ? g.error->message : "") << g.internal;
  const std::string cu = tma_kernels(g.artifact->cu);
  auto has = [&](const std::string& s) { return cu.find(s) != std::string::npos; };
  // Per kernel (three): the second copy, the peeled iteration, the pairs, the odd remainder, the
  // last deferred mma by parity.
  EXPECT_EQ(count(cu, "uint32_t v_A_1_odd["), 3);
  EXPECT_EQ(count(cu, "// pingpong(double_buffer): iteration k writes"), 3);
  EXPECT_EQ(count(cu, "if (v_6 > 0) {  // iteration 0, peeled"), 3);
  EXPECT_EQ(count(cu, "for (; v_j_next + 1 < v_6; v_j_next += 2) {  // two iterations a trip: odd, then even"), 3);
  EXPECT_EQ(count(cu, "if (v_j_next < v_6) {  // an odd last iteration"), 3);
  EXPECT_EQ(count(cu, "if (((v_6 - 1) & 1) == 0) {  // the last iteration wrote the even copy"), 3);
  EXPECT_FALSE(has("if (v_j > 0) {  // pv_thread")) << "no deferred mma under a guard";
  // Per loop: the peeled body's empty groups (whole and clipped tile) and the four copies with W.
  EXPECT_EQ(count(cu, "{  // nothing was deferred into iteration 0 (peeled): an empty group in W's place"), 6);
  // In each copy with W, the pack writes one copy and W reads the other: the odd copies write
  // v_A_1_odd and read v_A_1, the even ones the reverse (every wgmma from registers reads A).
  const size_t pair = cu.find("for (; v_j_next + 1 < v_6;");
  const size_t odd = cu.find("const int64_t v_j = v_j_next;", pair), even = cu.find("const int64_t v_j = v_j_next + 1;", pair);
  ASSERT_LT(odd, even);
  const std::string odd_body = cu.substr(odd, even - odd);
  EXPECT_NE(odd_body.find("&v_A_1[0]"), std::string::npos);
  EXPECT_EQ(odd_body.find("&v_A_1_odd[0]"), std::string::npos);
  EXPECT_NE(odd_body.find("v_A_1_odd[i] = loom::rt::pack_pair"), std::string::npos);
  EXPECT_EQ(odd_body.find("v_A_1[i] = loom::rt::pack_pair"), std::string::npos);
  const std::string even_body = cu.substr(even, cu.find("if (v_j_next < v_6)", even) - even);
  EXPECT_NE(even_body.find("&v_A_1_odd[0]"), std::string::npos);
  EXPECT_EQ(even_body.find("&v_A_1[0]"), std::string::npos);
  EXPECT_NE(even_body.find("v_A_1[i] = loom::rt::pack_pair"), std::string::npos);
}

// pingpong(double_buffer) lifts the refusal of turns on the hand-pipelined FlashAttention-3 loop:
// the deferred P V's registers are never written while it may read them, whatever ptxas does with
// the registers (which it serializes for want of them there: C7512, scripts/codegen_compile_check.sh).
TEST(Codegen, DoubleBufferedTurnsParsePrintAndReachTheLoop) {
  const std::string text = double_buffered("flash_attention_2");
  auto r = test::check_text(text, "flash_attention_2.loom");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(format_program(r.program).find("pipeline(2) pingpong(double_buffer) smem(227KB);"), std::string::npos) << format_program(r.program);
  test::CompiledMappings c = test::compile_mappings(text, "flash_attention_2");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  EXPECT_NE(c.ir.find("pipeline(2) warpspecialize pingpong(double_buffer)"), std::string::npos) << c.ir;
}

TEST(Codegen, DoubleBufferedTurnsOnAHandPipelinedLoop) {
  const std::string text = double_buffered("flash_attention_3");
  Generated g = generate("flash_attention_3", text);
  ASSERT_TRUE(g.artifact) << g.diagnostics << (g.error ? g.error->message : "") << g.internal;
  const std::string cu = tma_kernels(g.artifact->cu);
  EXPECT_EQ(count(cu, "if (v_j_next < v_last) {  // an odd last iteration"), 2);  // (its loop runs to `last`)
  EXPECT_EQ(count(cu, "loom::rt::named_barrier_sync(3 + consumer_wg, 256);") % 2, 0);
}

// Causal attention: the key loop's trip count grows with the Q tile's index, so the kernel can walk
// that index folded (n - 1, 0, n - 2, 1, ...) and the launcher decides per call which order
// balances its persistent blocks (tile_order.cpp); gemm's tiles are alike and have one order.
TEST(Codegen, UnevenTilesGetAFoldedOrderChosenPerCall) {
  codegen::CudaArtifact a = tma_kernels(artifact_of("flash_attention_3_causal"));
  auto has = [&](const std::string& s) { return a.cu.find(s) != std::string::npos; };
  EXPECT_TRUE(has("const int64_t v_i = fold ? loom::rt::fold_index(pos, grid_n1) : pos;"));
  EXPECT_TRUE(has("int fold_tiles(const loom_tensor& O, const loom_tensor& Q, const loom_tensor& Kt, const loom_tensor& V, float v_scale, cudaStream_t stream, int64_t grid) {"));
  EXPECT_TRUE(has("const int fold = fold_tiles(O, Q, Kt, V, v_scale, stream, grid);"));
  EXPECT_TRUE(has("cost[static_cast<size_t>(at)] = static_cast<double>(v_10) + 1.0;"));
  EXPECT_TRUE(has("const int64_t grid_n1,\n    const int fold) {"));
  codegen::CudaArtifact g = artifact_of("gemm");
  EXPECT_EQ(g.cu.find("fold"), std::string::npos);
  codegen::CudaArtifact f = artifact_of("flash_attention_2");
  EXPECT_EQ(f.cu.find("fold_tiles"), std::string::npos) << "non-causal attention: every Q tile sees every key tile";
}

// `pingpong` on a loop with one mma per iteration (examples/gemm): no rotation, every wgmma issue
// is a turn of its own.
TEST(Codegen, PingpongWithoutRotation) {
  // The default mapping alone: splitk with pingpong is refused (splitk.cpp).
  Generated g = generate("gemm", gemm_edited("warpspecialize pipeline(3)", "warpspecialize pipeline(3) pingpong"), /*default_only=*/true);
  ASSERT_TRUE(g.artifact) << (g.error ? g.error->message : g.internal + g.diagnostics);
  const std::string& cu = g.artifact->cu;
  EXPECT_NE(cu.find("// pingpong: each wgmma issue below is a turn (the loop is not rotated"), std::string::npos);
  EXPECT_EQ(cu.find("deferred into this turn"), std::string::npos);
  EXPECT_GE(count(cu, "+ consumer_wg, 256);  // pingpong: wait for this warpgroup's turn"), 1);
}

// FA2's softmax (rows.cpp): row statistics in registers with quad shuffles, P fed to the second
// wgmma from registers, masked reductions for a clipped key tile, the Q buffer released per tile.
TEST(Codegen, FlashAttention2SoftmaxInRegisters) {
  codegen::CudaArtifact a = tma_kernels(artifact_of("flash_attention_2"));
  auto has = [&](const std::string& s) { return a.cu.find(s) != std::string::npos; };
  EXPECT_TRUE(has("float v_m_1[2];  // row vector in registers"));
  EXPECT_TRUE(has("x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));"));
  EXPECT_TRUE(has("x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));"));
  EXPECT_TRUE(has("x = (x + __shfl_xor_sync(0xffffffffu, x, 2));"));
  EXPECT_TRUE(has("loom::rt::wgmma_m64nNk16_rs<128, __nv_bfloat16, 1>"));
  EXPECT_TRUE(has("uint32_t v_A_1[32];  // %A.1 in registers: this thread's A fragments, packed pairs of %P"));
  EXPECT_TRUE(has("& loom::rt::pair_mask(loom::rt::acc_col(tid, 2 * i), ncols);"));  // past a clipped key tile
  EXPECT_TRUE(has("if (loom::rt::acc_col(tid, r) < ncols)"));
  EXPECT_TRUE(has("loom::rt::ex2_approx("));
  EXPECT_TRUE(has("loom::rt::mbarrier::arrive(&bar_free_"));
  EXPECT_TRUE(has("if (tile_iter > 0) loom::rt::mbarrier::wait(&bar_free_"));
  EXPECT_TRUE(has("if (O.shape[2] > 128) return LOOM_ERR_SHAPE;"));
  EXPECT_FALSE(has("expf(")) << "exp2 lowers to ex2.approx";
}

// FA2's scores: `clear(S)` then `S += Q K^T` in the same loop body; the fill is folded into the
// wgmma, whose first k step overwrites S (scale-d = 0). GEMM's accumulator is cleared before its K
// loop: that fill stays (only the first iteration could fold it).
TEST(Codegen, AZeroFillBeforeAWgmmaBecomesItsScaleD) {
  codegen::CudaArtifact a = tma_kernels(artifact_of("flash_attention_2"));
  // Per kernel (D = 128, D <= 64, D > 128) and copy of the loop body (whole tiles, clipped:
  // whole_tiles.cpp): the scores' wgmma overwrites; the accumulator's P V does not. (The D > 128
  // kernel's scores read a 256-wide K-major tile, another descriptor text: 4 of the 6 below.)
  EXPECT_EQ(count(a.cu, "(folded into the next wgmma: its first k step overwrites v_Cp_6, scale-d = 0)"), 6);
  EXPECT_EQ(count(a.cu, "loom::Swizzle::B128, 128, 16 * ks), ks > 0);"), 4);
  EXPECT_EQ(a.cu.find("v_Cp_6[r] = v_4;"), std::string::npos);
  EXPECT_EQ(a.cu.find("loom::rt::wgmma_m64nNk16_rs<128, __nv_bfloat16, 1>(v_C, *reinterpret_cast<const uint32_t(*)[4]>(&v_A_1[0]), "
                      "loom::rt::desc_mn_major(v_B_stages_1 + ((0) * 2 + (0 + v_slot)) * 16384 + ((v_B_1_o1 + 0) / 64) * 8192 + "
                      "(v_B_1_o0) * 64, loom::Swizzle::B128, 128, 16 * 0), 0);"),
            std::string::npos);
  codegen::CudaArtifact g = tma_kernels(artifact_of("gemm"));
  EXPECT_EQ(g.cu.find("folded into the next wgmma"), std::string::npos);
  EXPECT_EQ(g.cu.find("ks > 0);"), std::string::npos);
}

// A wait for a TMA copy issued before a loop (FA2's Q tile, once per tile) holds in every
// iteration: the body does not wait for it again.
TEST(Codegen, ALoadBeforeTheLoopIsWaitedForOnce) {
  codegen::CudaArtifact a = tma_kernels(artifact_of("flash_attention_2"));
  // Per kernel: once before the key loop; inside, the K and V tiles' waits only (once in each copy
  // of the body, whole_tiles.cpp).
  EXPECT_EQ(count(a.cu, "loom::rt::mbarrier::wait(&bar_v_e_5[0], tile_iter & 1);"), 3);
  EXPECT_EQ(count(a.cu, "loom::rt::mbarrier::wait(&bar_v_e_8[(v_e_6_base + v_j) % 2], ((v_e_6_base + v_j) / 2) & 1);"), 6);
}

TEST(Codegen, F32OutputIsNotLoweredYet) {
  Generated g = generate("gemm", gemm_edited("entry(T=bf16, E=bf16)", "entry(T=f32, E=bf16)"));
  ASSERT_TRUE(g.checked) << g.diagnostics;
  EXPECT_TRUE(g.internal.empty()) << g.internal;
  ASSERT_TRUE(g.error.has_value());
  EXPECT_EQ(g.error->message, "the CUDA back end cannot lower a store to f32 yet (from `copy_thread: convert(D, X)`)");
  EXPECT_EQ(g.error->loc.line, 91u);
}

TEST(Codegen, WithoutWarpSpecializationIsNotLoweredYet) {
  // (Without the multicast candidates, whose loads need the DMA role: the checker says so first.)
  std::string text = gemm_edited(" warpspecialize pipeline(3)", " pipeline(3)");
  text = text.substr(0, text.find("// The same tiles on clusters of 2 blocks"));
  Generated g = generate("gemm", text);
  ASSERT_TRUE(g.checked) << g.diagnostics;
  EXPECT_TRUE(g.internal.empty()) << g.internal;
  ASSERT_TRUE(g.error.has_value());
  EXPECT_TRUE(starts_with(g.error->message, "the CUDA back end cannot lower ")) << g.error->message;
  EXPECT_TRUE(g.error->loc.valid());
}

TEST(Codegen, F16Lowers) {
  Generated g = generate("gemm", gemm_edited("entry(T=bf16, E=bf16)", "entry(T=f16, E=f16)"));
  ASSERT_TRUE(g.artifact.has_value()) << (g.error ? g.error->message : g.internal);
  // One per mapping's TMA kernel and one per its async-copy variant.
  EXPECT_EQ(count(g.artifact->cu, "loom::rt::wgmma_m64nNk16<256, __half, 0, 1>("), 8);  // 128 x 256, alone and on clusters of 2, 4 x 1, 2 x 2
  EXPECT_EQ(count(g.artifact->cu, "loom::rt::wgmma_m64nNk16<64, __half, 0, 1>("), 8);  // the 128 x 64 mappings (one split), 64 x 64 split and 64 x 64
  EXPECT_NE(g.artifact->cu.find("reinterpret_cast<__half*>(C.data)"), std::string::npos);  // the epilogue
  EXPECT_NE(g.artifact->cu.find("if (C.dtype != LOOM_F16) return LOOM_ERR_DTYPE;"), std::string::npos);
  EXPECT_NE(g.artifact->cu.find("s.dtype = loom::host::TmaDtype::F16;"), std::string::npos);
  EXPECT_EQ(count(g.artifact->cu, "LOOM_BF16"), 0);
}


}  // namespace
}  // namespace loom
