// Tests of the CUDA back end (src/codegen/cuda.h; docs/codegen.md):
// - goldens of the generated .cu and .h for examples/gemm and examples/batched_gemm after the whole
//   pipeline (tests/golden/codegen/<name>.cu, .h; UPDATE_GOLDEN=1 regenerates);
// - FileCheck-style facts on the generated GEMM: in the producer's K loop one TMA box for A and four
//   for B (128-byte swizzle slices of a 256-column tile), each behind an expect-tx arrival on its
//   barrier; the register split (setmaxnreg_dec<40> / setmaxnreg_inc<232>); in the consumer's K loop
//   a wait on every TMA barrier before the wgmma sequence, the 64x256x16 bf16 wgmma with B
//   MN-major, and wgmma_wait<1> after the commit; the C ABI: the header's two declarations and
//   `extern "C"` only on those two functions, everything else in an anonymous namespace;
// The other examples' facts and what the back end cannot lower yet are codegen_examples_test.cpp;
// the async-copy variant and the CLI codegen_cli_test.cpp (helpers: codegen_test_util.h).
// Whether the generated code compiles with nvcc (and two kernels link into one program) is the
// CTest `codegen_nvcc_compile` (scripts/codegen_compile_check.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>
#include <regex>

#include "codegen_test_util.h"

namespace loom {
namespace {

using namespace codegen_test;

// ---- goldens ---------------------------------------------------------------------------------------------

TEST(Codegen, Golden) {
  for (const char* name :
       {"gemm", "batched_gemm", "dual_gemm", "flash_attention_2", "flash_attention_3", "flash_attention_3_causal", "gemm_bias_act", "gemm_residual",
        "add_gemm", "gemm_reduce", "gemm_reduce_shared", "relu_gemm"}) {
    SCOPED_TRACE(name);
    codegen::CudaArtifact a = artifact_of(name);
    EXPECT_EQ(a.entry, std::string(name).rfind("flash_attention", 0) == 0 ? "mha"
                       : std::string(name) == "gemm_reduce_shared"      ? "gemm_reduce"
                                                                        : name);
    expect_golden(std::string("codegen/") + name + ".cu", a.cu);
    expect_golden(std::string("codegen/") + name + ".h", a.header);
  }
}

// relu_gemm's prologue keeps the rectified A tile in 32-bit pairs (elementwise.cpp, rows.cpp): an
// interior tile copies the words the ldmatrix loaded, and the pack into the wgmma's A fragments
// applies the relu to a whole pair (relu_pair) after the wait for the earlier wgmmas — never before
// it: a value that defines an A register before that wait makes ptxas serialize the wgmmas (C7513).
TEST(Codegen, ReluPrologueTakesTheMaxOfWholePairsAfterTheWgmmaWait) {
  const std::string cu = artifact_of("relu_gemm").cu;
  const int kernels = count(cu, "__global__ void");
  ASSERT_GT(kernels, 0);
  const std::regex copy_words(R"(for \(int p = 0; p < \d+; \+\+p\) (v_\w+)_w\[p\] = (v_\w+)_w\[p\];)");
  EXPECT_EQ(std::distance(std::sregex_iterator(cu.begin(), cu.end(), copy_words), std::sregex_iterator()), kernels)
      << "one interior copy of the loaded pairs per kernel (each mapping's TMA and async-copy kernels)";
  int packs = 0;
  for (size_t at = cu.find("relu_pair<"); at != std::string::npos; at = cu.find("relu_pair<", at + 1)) {
    ++packs;
    const size_t wait = cu.rfind("loom::rt::wgmma_wait<0>();  // earlier wgmmas read", at);
    const size_t prev_mma = cu.rfind("wgmma_m64nNk16_rs<", at);
    ASSERT_NE(wait, std::string::npos);
    EXPECT_TRUE(prev_mma == std::string::npos || prev_mma < wait) << "a relu_pair between a wgmma and the wait for it";
    EXPECT_LT(cu.find("wgmma_m64nNk16_rs<", at), cu.find("// rectify_thread", at)) << "the pack precedes this step's wgmmas";
  }
  EXPECT_EQ(packs, 2 * kernels) << "the unmasked and the masked pack, in every kernel";
}

// An edge tile of relu_gemm's prologue (rows past the warpgroup's tile, or the K step's last columns)
// masks the loaded pairs, a word at a time, instead of selecting, rectifying and repacking each
// element: that path was the K loop of every edge tile, and where a wave holds few tiles their blocks
// set the call's time (H200: 408 x 6896 x 6408 0.141 -> 0.083 ms,
// bench/results/2026-12-02-h200-relu-edge.md).
TEST(Codegen, ReluPrologueEdgeTileMasksTheLoadedPairs) {
  const std::string cu = artifact_of("relu_gemm").cu;
  const int kernels = count(cu, "__global__ void");
  ASSERT_GT(kernels, 0);
  const std::regex masked(
      R"(for \(int p = 0; p < \d+; \+\+p\) (v_\w+)_w\[p\] = \((v_\w+)_rows\[\(p\) & 1\] \? loom::rt::pair_mask\(\(\(p\) >> 1\) \* 8, \2_cols\) : 0u\) & \2_w\[p\];)");
  EXPECT_EQ(std::distance(std::sregex_iterator(cu.begin(), cu.end(), masked), std::sregex_iterator()), kernels)
      << "one masked copy of the loaded pairs per kernel";
  EXPECT_EQ(cu.find("_w[p] = loom::rt::pack_pair("), std::string::npos) << "no edge tile repacks its elements";
}

// examples/gemm's transposed mappings (mma(..., transposed)): the wgmma runs on C^T = B^T A^T, its A
// operand B's tile read MN-major (transpose bit 1), its B operand A's tile read K-major, n = the
// tile's 80 rows; the epilogue stages C^T's 8 x 8 blocks with stmatrix.trans and stores C by TMA,
// and the direct store transposes each 8 x 8 block in registers (movmatrix.trans) for 16-byte stores. The untransposed default
// mapping has none of it.
TEST(Codegen, TransposedMmaSwapsTheOperandsAndStoresTheTranspose) {
  const std::string cu = artifact_of("gemm").cu;
  const std::string m0 = between(cu, "namespace mapping0 {", "}  // namespace mapping0");
  const std::string t = between(cu, "namespace mapping16 {", "}  // namespace mapping16");
  ASSERT_FALSE(t.empty());
  const std::string tma = tma_kernels(t);
  EXPECT_NE(tma.find("const uint64_t da = loom::rt::desc_mn_major(v_B_stages"), std::string::npos) << tma;
  EXPECT_NE(tma.find("const uint64_t db = loom::rt::desc_k_major(v_A_stages"), std::string::npos);
  EXPECT_NE(tma.find("loom::rt::wgmma_m64nNk16<80, __nv_bfloat16, 1, 0>(v_C_1, da, db, 1);"), std::string::npos);
  EXPECT_EQ(count(tma, "loom::rt::stmatrix_x4_trans("), 1);
  EXPECT_EQ(count(tma, "loom::rt::tma_store_2d("), 1);
  // Direct: per 8 x 8 block one movmatrix.trans, then the quad transposition, 16-byte stores.
  EXPECT_NE(tma.find("pairs[t] = loom::rt::movmatrix_trans(loom::rt::pack2<__nv_bfloat16>(v_C_1[rb * 40 + 4 * (2 * jj + (t >> 1)) + 2 * (t & 1)], "),
            std::string::npos);
  EXPECT_NE(tma.find("loom::rt::quad_gather(pairs, mine);"), std::string::npos);
  EXPECT_NE(tma.find("const int64_t row = 16 * jj + 8 * (quad_lane >> 1) + (lane >> 2), col = col0 + 8 * (quad_lane & 1);"), std::string::npos);
  EXPECT_EQ(m0.find("_trans("), std::string::npos);
  EXPECT_EQ(m0.find(", 1, 0>("), std::string::npos);
}

// A wgmma needs its n / 2 accumulators and about 26 more registers a thread at once, and ptxas fits
// each instruction in the launch's count whatever setmaxnreg raises it to: four compute
// warpgroups (640 threads, 96 registers) of m64n144k16 ask for 98 and nvcc fails ("Insufficient
// registers"). The back end refuses that at the mma with the widest n that fits (136, which
// compiles in 96 registers without spills; cuda_gen.h, kWgmmaOperandRegs).
TEST(Codegen, AWgmmaWiderThanTheLaunchsRegistersIsALocatedError) {
  const std::string gemm = read_file(example_path("gemm"));
  const std::string tasks = gemm.substr(0, gemm.find("\nmapping sm_90a"));
  auto program = [&](int n) {
    const std::string N = std::to_string(n);
    return tasks + "\n" + "mapping sm_90a {\n"
           "  instance gemm_host = gemm_host on HOST mem(GLOBAL, GLOBAL, GLOBAL) tune(U=" + N + ", V=256)\n"
           "      call(gemm: gemm_block) entry(T=bf16, E=bf16);\n"
           "  instance gemm_block = gemm_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL) tune(W=64)\n"
           "      call(gemm: gemm_tile, clear: clear_tile, copy: copy_tile) warpspecialize pipeline(3) smem(227KB);\n"
           "  instance gemm_tile = gemm_tile_t on BLOCK mem(NONE, SHARED, SHARED) tune(G=4) call(gemm: gemm_wg)\n"
           "      layout(A: row_major swizzle128, B: row_major swizzle128);\n"
           "  instance gemm_wg = gemm_mma_t on WARPGROUP mem(NONE, SHARED, SHARED) tune(N_MMA=" + N + ") call(gemm: gemm_warp);\n"
           "  instance gemm_warp = gemm_mma_t on WARP mem(NONE, SHARED, SHARED) tune(N_MMA=" + N + ") call(gemm: gemm_thread);\n"
           "  instance gemm_thread = gemm_thread on THREAD mem(REGISTER, SHARED, SHARED);\n"
           "  instance clear_tile = clear_tile_t on BLOCK mem(NONE) tune(G=4) call(clear: clear_wg);\n"
           "  instance clear_wg = clear_mma_t on WARPGROUP mem(NONE) tune(N_MMA=" + N + ") call(clear: clear_warp);\n"
           "  instance clear_warp = clear_mma_t on WARP mem(NONE) tune(N_MMA=" + N + ") call(clear: clear_thread);\n"
           "  instance clear_thread = clear_thread on THREAD mem(REGISTER);\n"
           "  instance copy_tile = copy_tile_t on BLOCK mem(GLOBAL, NONE) tune(G=4) call(copy: copy_wg);\n"
           "  instance copy_wg = copy_mma_t on WARPGROUP mem(GLOBAL, NONE) tune(N_MMA=" + N + ") call(copy: copy_warp);\n"
           "  instance copy_warp = copy_mma_t on WARP mem(GLOBAL, NONE) tune(N_MMA=" + N + ") call(copy: copy_thread);\n"
           "  instance copy_thread = copy_thread on THREAD mem(GLOBAL, REGISTER);\n"
           "}\n";
  };
  Generated fits = generate("gemm", program(136));
  EXPECT_TRUE(fits.artifact) << fits.diagnostics << (fits.error ? fits.error->message : fits.internal);
  Generated wide = generate("gemm", program(144));
  ASSERT_TRUE(wide.error) << wide.diagnostics << wide.internal;
  EXPECT_TRUE(wide.error->loc.valid());
  EXPECT_NE(wide.error->message.find("this mma's wgmma (m64n144k16) needs 98 registers a thread at once (72 accumulators and 26 for "
                                     "its operands), more than the 96 every thread of the kernel's 5 warpgroups gets at launch"),
            std::string::npos)
      << wide.error->message;
  EXPECT_NE(wide.error->hint.find("a wgmma of at most n = 136"), std::string::npos) << wide.error->hint;
}

// gemm_bias_act on transposed tiles: the bias follows C's columns, which are the wgmma's rows, so
// each lane loads the entries at acc_row(t, 0) and acc_row(t, 2) of every 64 (mma(b, rhs, ...,
// transposed); operands.cpp). The variants are the example's own (since session 49, for its 208 x 128
// tiles on 2 x 4 clusters); the mapping appended is one of bench/results/2026-12-02-h200-transposed's
// gba_candidates.sh tiles (80 x 128).
TEST(Codegen, TransposedBiasFollowsTheWgmmaRows) {
  const std::string text = read_file(example_path("gemm_bias_act")) + "\n" + R"LOOM(mapping sm_90a when(fastest) {
  instance host = gemm_bias_act_host on HOST mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(U=80, V=128)
      call(gemm_bias_act: block) entry(T=bf16, E=bf16);
  instance block = gemm_bias_act_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(W=64)
      call(gemm: gemm_tile, clear: clear_tile, bias_act: act_tile) warpspecialize pipeline(6)
      smem(227KB);
  instance gemm_tile = gemm_tile_t on BLOCK mem(NONE, SHARED, SHARED) tune(G=2) call(gemm: gemm_wg)
      layout(A: row_major swizzle128, B: row_major swizzle128);
  instance gemm_wg = gemm_mma_t on WARPGROUP mem(NONE, SHARED, SHARED) tune(N_MMA=80)
      call(gemm: gemm_warp);
  instance gemm_warp = gemm_mma_t on WARP mem(NONE, SHARED, SHARED) tune(N_MMA=80)
      call(gemm: gemm_thread);
  instance gemm_thread = gemm_thread on THREAD mem(REGISTER, SHARED, SHARED);
  instance clear_tile = clear_tile_t on BLOCK mem(NONE) tune(G=2) call(clear: clear_wg);
  instance clear_wg = clear_mma_t on WARPGROUP mem(NONE) tune(N_MMA=80) call(clear: clear_warp);
  instance clear_warp = clear_mma_t on WARP mem(NONE) tune(N_MMA=80) call(clear: clear_thread);
  instance clear_thread = clear_thread on THREAD mem(REGISTER);
  instance act_tile = bias_act_tile_t on BLOCK mem(GLOBAL, NONE, GLOBAL) tune(G=2)
      call(bias_act: act_wg);
  instance act_wg = bias_act_mma_t on WARPGROUP mem(GLOBAL, NONE, GLOBAL) tune(N_MMA=80)
      call(bias_act: act_warp);
  instance act_warp = bias_act_mma_t on WARP mem(GLOBAL, NONE, GLOBAL) tune(N_MMA=80)
      call(bias_act: act_thread);
  instance act_thread = bias_gelu_thread on THREAD mem(GLOBAL, REGISTER, GLOBAL);
}
)LOOM";
  Generated g = generate("gemm_bias_act", text);
  ASSERT_TRUE(g.artifact) << g.diagnostics << (g.error ? g.error->message : g.internal);
  // The appended mapping is the example's last one.
  const std::string& cu = g.artifact->cu;
  const size_t at = cu.rfind("\nnamespace mapping");
  ASSERT_NE(at, std::string::npos);
  const std::string index = cu.substr(at + 18, cu.find(' ', at + 18) - (at + 18));
  const std::string last =
      tma_kernels(between(cu, "namespace mapping" + index + " {", "}  // namespace mapping" + index));
  ASSERT_FALSE(last.empty());
  EXPECT_NE(last.find("loom::rt::wgmma_m64nNk16<80, __nv_bfloat16, 1, 0>("), std::string::npos);
  EXPECT_NE(last.find("const int64_t e = loom::rt::acc_row(v_bp_1_t, 2 * (q & 1)) + 64 * (q >> 1);"), std::string::npos) << last;
  EXPECT_EQ(count(last, "loom::rt::stmatrix_x4_trans("), 1);
  EXPECT_NE(last.find("loom::rt::gelu_tanh("), std::string::npos);
}

// Every barrier the consumers arrive on to hand something back to the producer ("compute warps
// done with ...") is waited for somewhere in the same kernel: a release nobody waits for means the
// producer refills a slot while the consumers may still read it (flash_attention_2 lost the K
// ring's wait that way once; the H100 failed with an illegal mbarrier transaction count).
TEST(Codegen, EveryReleaseBarrierIsWaitedFor) {
  for (const char* name :
       {"gemm", "batched_gemm", "dual_gemm", "flash_attention_2", "flash_attention_3", "flash_attention_3_causal", "gemm_bias_act", "gemm_residual",
        "add_gemm", "gemm_reduce", "gemm_reduce_shared", "relu_gemm"}) {
    SCOPED_TRACE(name);
    const std::string cu = artifact_of(name).cu;
    // Each kernel body from its barrier declarations to the next kernel.
    size_t at = 0;
    int kernels = 0;
    while ((at = cu.find("// ---- setup: mbarriers", at)) != std::string::npos) {
      const size_t end = std::min(cu.find("// ---- setup: mbarriers", at + 1), cu.size());
      const std::string k = cu.substr(at, end - at);
      ++kernels;
      std::istringstream lines(k);
      for (std::string l; std::getline(lines, l);) {
        const size_t decl = l.find("uint64_t* const bar_");
        if (decl == std::string::npos || l.find("compute warps done with") == std::string::npos) continue;
        const std::string bar = l.substr(decl + 16, l.find(' ', decl + 16) - (decl + 16));
        EXPECT_NE(k.find("mbarrier::wait(&" + bar + "["), std::string::npos) << bar << " is never waited for: " << l;
      }
      at = end;
    }
    EXPECT_GT(kernels, 0);
  }
}

TEST(Codegen, Deterministic) {
  codegen::CudaArtifact a = artifact_of("gemm"), b = artifact_of("gemm");
  EXPECT_EQ(a.cu, b.cu);
  EXPECT_EQ(a.header, b.header);
}

// ---- facts on the generated GEMM ---------------------------------------------------------------------

class CodegenGemm : public testing::Test {
 protected:
  // The default mapping's kernel (Codegen.SpecializedMappingDispatch covers the file with both).
  static void SetUpTestSuite() { a_ = new codegen::CudaArtifact(tma_kernels(artifact_of("gemm", /*default_only=*/true))); }
  static void TearDownTestSuite() {
    delete a_;
    a_ = nullptr;
  }
  static const std::string& cu() { return a_->cu; }
  static std::string producer() { return between(cu(), "// ---- producer", "// ---- consumer"); }
  static std::string consumer() { return between(cu(), "// ---- consumer", "// Checks every argument"); }
  static codegen::CudaArtifact* a_;
};
codegen::CudaArtifact* CodegenGemm::a_ = nullptr;

TEST_F(CodegenGemm, SkeletonInOrder) {
  // setup (barriers) -> producer -> consumer -> host launcher -> the ABI functions.
  std::vector<std::string> marks = {"__global__ void __launch_bounds__(kThreads, 1) gemm_kernel(",
                                    "// ---- setup",
                                    "loom::rt::mbarrier::init(",
                                    "loom::rt::fence_barrier_init();",
                                    "__syncthreads();",
                                    "// ---- producer",
                                    "// ---- consumer",
                                    "int launch_gemm(",
                                    "gemm_kernel<<<",
                                    "}  // namespace",
                                    "extern \"C\" int loom_gemm(",
                                    "extern \"C\" const loom_kernel_info* loom_gemm_info(void)"};
  size_t at = 0;
  for (const std::string& m : marks) {
    size_t next = cu().find(m, at);
    ASSERT_NE(next, std::string::npos) << "missing, or out of order: " << m;
    at = next + m.size();
  }
  EXPECT_NE(cu().find("constexpr int kThreads = 384;"), std::string::npos);
  EXPECT_NE(cu().find("#include \"gemm.h\""), std::string::npos);
  EXPECT_NE(cu().find("#include \"loom/runtime.cuh\""), std::string::npos);
}

TEST_F(CodegenGemm, RegisterSplit) {
  EXPECT_EQ(count(producer(), "loom::rt::setmaxnreg_dec<40>();"), 1);
  EXPECT_EQ(count(consumer(), "loom::rt::setmaxnreg_inc<232>();"), 1);
  EXPECT_EQ(count(cu(), "setmaxnreg"), 2);
  // One elected thread of the producer warpgroup issues the copies.
  EXPECT_NE(producer().find("loom::rt::elect_one_sync()"), std::string::npos);
}

TEST_F(CodegenGemm, ProducerIssuesOneBoxForAAndFourForB) {
  const std::string loop = k_loop(producer());
  ASSERT_FALSE(loop.empty()) << producer();
  // A: a 128 x 64 bf16 tile is one 128-byte swizzle slice; B: 64 x 256 is four 64-column slices.
  EXPECT_EQ(count(loop, "loom::rt::tma_load_2d("), 5) << loop;
  EXPECT_EQ(count(loop, ", &tm_A_"), 1) << loop;
  EXPECT_EQ(count(loop, ", &tm_B_"), 4) << loop;
  for (const char* slice : {" + 64)", " + 128)", " + 192)"}) EXPECT_EQ(count(loop, slice), 1) << slice << "\n" << loop;
  // Each copy's bytes are announced on its barrier before the boxes are issued.
  EXPECT_EQ(count(loop, "loom::rt::mbarrier::arrive_expect_tx("), 2) << loop;
  EXPECT_NE(loop.find(", 16384);"), std::string::npos) << "A: 128 x 64 x 2 bytes\n" << loop;
  EXPECT_NE(loop.find(", 32768);"), std::string::npos) << "B: 64 x 256 x 2 bytes\n" << loop;
  // The producer waits for the consumers to release a ring slot 3 iterations back, and issues no
  // wgmma.
  EXPECT_NE(loop.find(">= 3) loom::rt::mbarrier::wait("), std::string::npos) << loop;
  EXPECT_EQ(count(producer(), "wgmma"), 0);
  // The tensor maps: boxes of 64 columns (128 bytes of bf16) with the 128-byte swizzle; the third
  // is the epilogue's TMA store of C.
  const std::string host = cu().substr(cu().find("int launch_gemm("));
  EXPECT_EQ(count(host, "s.swizzle = loom::Swizzle::B128;"), 3);
  EXPECT_EQ(count(host, "s.box_dims[0] = 64;"), 3);
  EXPECT_EQ(count(host, "s.box_dims[1] = 128;"), 1);  // A: 128 rows
  EXPECT_EQ(count(host, "s.box_dims[1] = 64;"), 2);   // B: 64 rows of K; C: a warpgroup's 64 rows
}

// A block width that is not whole swizzle slices (ir::padded_row): a 64 x 224 B tile is laid out,
// loaded and addressed as four 64-column slices, the last one half used. The TMA issues four full
// boxes (the expect-tx counts their bytes), each stage takes 64 x 256 elements, the wgmma is N = 224
// over the same slice stride, and resource allocation sized the slot for the padded rows.
TEST(Codegen, BlockWidthOfPartSlicesPadsTheRows) {
  std::string text = read_file(example_path("gemm"));
  text = text.substr(0, text.find("// Other tile shapes"));
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{{"V=256", "V=224"}, {"N_MMA=256", "N_MMA=224"}}) {
    ASSERT_NE(text.find(from), std::string::npos) << from;
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) text.replace(at, from.size(), to);
  }
  Generated g = generate("gemm", text);
  ASSERT_TRUE(g.checked) << g.diagnostics;
  ASSERT_TRUE(g.artifact) << (g.error ? g.error->message : g.internal);
  const std::string& cu = g.artifact->cu;
  const std::string tma = cu.substr(cu.find("}  // namespace async_copy"));
  const std::string producer = between(tma, "// ---- producer", "// ---- consumer");
  const std::string loop = k_loop(producer);
  ASSERT_FALSE(loop.empty()) << producer;
  EXPECT_EQ(count(loop, ", &tm_B_"), 4) << loop;
  for (const char* slice : {" + 64)", " + 128)", " + 192)"}) EXPECT_EQ(count(loop, slice), 1) << slice << "\n" << loop;
  EXPECT_NE(loop.find(", 32768);"), std::string::npos) << "B: four full 64 x 64 x 2-byte boxes\n" << loop;
  EXPECT_NE(loop.find("v_B_stages + ((0) * 3 + (0 + v_slot)) * 16384 + 12288, &tm_B_1"), std::string::npos) << loop;
  EXPECT_NE(tma.find("loom::rt::wgmma_m64nNk16<224, __nv_bfloat16, 0, 1>(v_C_1, da, loom::rt::desc_mn_major(v_B_stages + "
                     "((0) * 3 + (0 + v_slot)) * 16384 + ((v_B_1_o1 + 0) / 64) * 4096"),
            std::string::npos);
  // The async-copy variant fills the same padded rows.
  EXPECT_NE(cu.find("loom::rt::async_copy_tile<__nv_bfloat16, loom::Swizzle::B128, 64, 256, 128>(v_B_stages"), std::string::npos);
  // Slots: A 3 x 16 KB, then B 3 x 32 KB (not 3 x 28 KB), then the staging tiles.
  EXPECT_NE(tma.find("uint8_t* const loom_stage = smem + 147456;"), std::string::npos);
  // The epilogue stages the 224 columns as three 128-byte slices and a 64-byte tail slice in the
  // 64-byte swizzle (28 KB a warpgroup), stored by four TMA boxes; the direct path (seven groups of
  // 32 columns from registers) stays for clipped tiles.
  EXPECT_NE(tma.find("3 slices of 64 rows x 128 bytes, 128-byte swizzle and one of 64 rows x 64 bytes, 64-byte swizzle"),
            std::string::npos);
  EXPECT_NE(tma.find("uint8_t* const stage = loom_stage + consumer_wg * 28672;"), std::string::npos);
  EXPECT_NE(tma.find(": stage + 24576 + mrow * 64 + (((cg % 8) ^ ((mrow >> 1) % 4)) * 16);"), std::string::npos);
  EXPECT_EQ(count(tma, "loom::rt::tma_store_2d("), 4);
  EXPECT_NE(tma.find(", stage + 24576, static_cast<int32_t>((v_Cp_o1 + 192)), static_cast<int32_t>(v_Dp_o0));  // the last 32 columns"),
            std::string::npos);
  const std::string host = tma.substr(tma.find("int launch_gemm("));
  EXPECT_EQ(count(host, "s.swizzle = loom::Swizzle::B64;"), 1);  // the tail's box: 32 columns x 64 rows
  EXPECT_EQ(count(host, "s.box_dims[0] = 32;"), 1);
  EXPECT_NE(tma.find("for (int jj = 0; jj < 7; ++jj) {"), std::string::npos);
}

// The epilogue: each consumer warpgroup writes its 64 x 256 tile into its own staging tile
// (stmatrix), fences the generic proxy, syncs on its named barrier, and one thread issues four TMA
// store boxes and commits them; before the next write the issuer waits until the stores have read
// the staging tile, and the warpgroup waits for it. Tiles clipped by anything but C's edges (or on
// rows that are not whole 16-byte units) keep the direct stores.
TEST_F(CodegenGemm, EpilogueStagesThroughSharedMemory) {
  const std::string c = consumer();
  const size_t e = c.find("if (staged) {");
  ASSERT_NE(e, std::string::npos) << c;
  const std::string staged = c.substr(e, c.find("} else {  // straight from registers", e) - e);
  std::vector<std::string> order = {"loom::rt::tma_store_wait<0>();",
                                    "loom::rt::named_barrier_sync(1 + consumer_wg, 128);",
                                    "loom::rt::stmatrix_x4(",
                                    "loom::rt::fence_proxy_async_shared();",
                                    "loom::rt::named_barrier_sync(1 + consumer_wg, 128);",
                                    "loom::rt::tma_store_2d(&tm_C_",
                                    "loom::rt::tma_store_commit();"};
  size_t at = 0;
  for (const std::string& m : order) {
    size_t next = staged.find(m, at);
    ASSERT_NE(next, std::string::npos) << "missing, or out of order: " << m << "\n" << staged;
    at = next + m.size();
  }
  EXPECT_EQ(count(staged, "loom::rt::tma_store_2d("), 4);
  EXPECT_NE(c.find("(C.shape[1] * 2) % 16 == 0"), std::string::npos);
  EXPECT_NE(c.find("*reinterpret_cast<uint4*>(p) ="), std::string::npos);  // the direct fallback
  // After the tile loop, the issuer waits for its last stores to leave the staging tile.
  EXPECT_NE(c.find("if (loom::rt::thread_in_warpgroup() == 0) loom::rt::tma_store_wait<0>();  // the last stores"),
            std::string::npos);
  // Two 32 KB staging tiles after the pipeline's 144 KB, before the barriers.
  EXPECT_NE(cu().find("uint8_t* const loom_stage = smem + 147456;"), std::string::npos);
}

// Staging tiles that do not fit the block's budget whole hold part of the tile at a time (cuda.cpp,
// generate_one; epilogue.cpp): 4 stages of 48 KB leave room for 16 KB a warpgroup, two of the 64 x 256
// tile's four 128-byte slices, stored in two chunks; a budget that leaves no room for one slice leaves
// the epilogue storing from registers.
TEST(Codegen, EpilogueStagedInPartsOrDirectWithoutRoom) {
  std::string text = read_file(example_path("gemm"));
  const std::string from = "warpspecialize pipeline(3)";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "warpspecialize pipeline(4)");  // 4 x 48 KB + 2 x 32 KB > 227 KB
  Generated g = generate("gemm", text);
  ASSERT_TRUE(g.artifact) << (g.error ? g.error->message : g.internal);
  const std::string k0 = between(g.artifact->cu, "namespace mapping0 {", "}  // namespace mapping0");
  ASSERT_FALSE(k0.empty());
  EXPECT_NE(k0.find("4 slices of 64 rows x 128 bytes, 128-byte swizzle, 2 at a time (the ring leaves room for 16384 bytes a warpgroup)"),
            std::string::npos) << k0;
  EXPECT_NE(k0.find("uint8_t* const stage = loom_stage + consumer_wg * 16384;"), std::string::npos);
  EXPECT_NE(k0.find("for (int ch = 0; ch < 2; ++ch) {"), std::string::npos);
  EXPECT_NE(k0.find("for (int c = 16 * ch; c < 16 * ch + 16; c += 2) {"), std::string::npos);
  EXPECT_NE(k0.find("uint8_t* const row = stage + (cg / 8 - 2 * ch) * 8192 + mrow * 128 + (((cg % 8) ^ (mrow % 8)) * 16);"),
            std::string::npos);
  EXPECT_NE(k0.find("loom::rt::tma_store_2d(&tm_C_2, stage + 8192, static_cast<int32_t>((v_Cp_o1 + 64 * (2 * ch + 1))), "
                    "static_cast<int32_t>(v_Dp_o0));"),
            std::string::npos);
  EXPECT_EQ(count(k0, "loom::rt::tma_store_wait<0>();  // the previous store has read the staging tile"), 1);  // in the chunk loop
  const std::string budget = "      smem(227KB);";
  ASSERT_NE(text.find(budget), std::string::npos);
  text.replace(text.find(budget), budget.size(), "      smem(200KB);");  // the ring alone: 192 KB and its barriers
  g = generate("gemm", text);
  ASSERT_TRUE(g.artifact) << (g.error ? g.error->message : g.internal);
  const std::string d0 = between(g.artifact->cu, "namespace mapping0 {", "}  // namespace mapping0");
  EXPECT_EQ(d0.find("staged"), std::string::npos);
  EXPECT_EQ(d0.find("loom_stage"), std::string::npos);
  EXPECT_EQ(count(d0, "tma_store"), 0);
  EXPECT_NE(d0.find("*reinterpret_cast<uint4*>(p) ="), std::string::npos);
}

// B column-major by mapping (tests/gpu/e2e/colmajor_b.sed: layout(B: col_major) on the entry
// instances, col_major swizzle128 on the staging one): the TMA box walks K innermost, the wgmma reads
// B K-major (TransB = 0), the launcher checks B.stride[0] == 1, and the header says so.
TEST(Codegen, ColumnMajorB) {
  std::string text = gemm_edited("call(gemm: gemm_block) entry(T=bf16, E=bf16);",
                                 "call(gemm: gemm_block) layout(B: col_major) entry(T=bf16, E=bf16);");
  const std::string from = "layout(A: row_major swizzle128, B: row_major swizzle128);";
  ASSERT_NE(text.find(from), std::string::npos);
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at))  // every mapping's B
    text.replace(at, from.size(), "layout(A: row_major swizzle128, B: col_major swizzle128);");
  Generated g = generate("gemm", text);
  ASSERT_TRUE(g.artifact) << (g.error ? g.error->message : g.internal + g.diagnostics);
  const std::string k0 = between(g.artifact->cu, "namespace mapping0 {", "}  // namespace mapping0");
  // One 64 (K) x 256 (N) box per stage: K is the innermost coordinate.
  EXPECT_NE(k0.find(", &tm_B_1, &bar_v_e_3[(v_e_1_base + v_k) % 3], static_cast<int32_t>(v_Bp_1_o0), static_cast<int32_t>(v_Bp_o1));"),
            std::string::npos);
  EXPECT_EQ(count(k0, "&tm_B_1, &bar"), 1);
  EXPECT_NE(k0.find("loom::rt::wgmma_m64nNk16<256, __nv_bfloat16, 0, 0>(v_C_1, da, loom::rt::desc_k_major(v_B_stages"), std::string::npos);
  EXPECT_NE(k0.find("if (B.stride[0] != 1) return LOOM_ERR_STRIDE;"), std::string::npos);
  EXPECT_NE(k0.find("s.global_dims[0] = static_cast<uint64_t>(B.shape[0] > 0 ? B.shape[0] : 1);"), std::string::npos);
  EXPECT_NE(k0.find("s.global_strides[0] = static_cast<uint64_t>(B.stride[1]) * 2;"), std::string::npos);
  EXPECT_NE(g.artifact->header.find("B: r bf16[K, N] column-major (stride[0] == 1)"), std::string::npos) << g.artifact->header;
  // The shared tile's order must match the tensor's: TMA does not transpose 16-bit elements.
  Generated h = generate("gemm", gemm_edited("layout(A: row_major swizzle128, B: row_major swizzle128);",
                                             "layout(A: row_major swizzle128, B: col_major swizzle128);"));
  ASSERT_TRUE(h.error.has_value()) << h.internal;
  EXPECT_EQ(h.error->message,
            "the CUDA back end cannot lower a column-major shared tile of a row-major global tensor yet (from `gemm_block: gemm(Acc, Ap[0, k], Bp[k, 0])`)");
  EXPECT_NE(h.error->hint.find("the same order"), std::string::npos);
}

// A specialized mapping: one kernel per mapping, each with its launcher in a namespace of its own,
// and a launch_<entry> that tests the condition on the call's extents and the device's SM count; the
// ABI is that of one kernel, its info reports the larger shared memory.
TEST(Codegen, SpecializedMappingDispatch) {
  int line = 0;
  Generated g = generate("gemm_bias_act", bias_act_with_condition(&line));
  ASSERT_TRUE(g.artifact) << g.diagnostics << g.internal << (g.error ? g.error->message : "");
  codegen::CudaArtifact a = tma_kernels(*g.artifact);
  for (const char* ns : {"namespace mapping0 {", "}  // namespace mapping0", "namespace mapping1 {", "}  // namespace mapping1"})
    EXPECT_EQ(count(a.cu, ns), 1) << ns;
  EXPECT_EQ(count(a.cu, "__global__ void __launch_bounds__(kThreads, 1) gemm_bias_act_kernel("), 2);
  EXPECT_NE(a.cu.find("  if (((2 * loom_cdiv(v_M, 128)) * loom_cdiv(v_N, 256)) <= v_SMS) return 1;  "
                      "// when(2 * cdiv(M, 128) * cdiv(N, 256) <= SMS) [gemm_bias_act.loom:" + std::to_string(line) + "]"),
            std::string::npos)
      << a.cu;
  EXPECT_NE(a.cu.find("  return 0;\n}"), std::string::npos);
  EXPECT_NE(a.cu.find("    case 1: return mapping1::launch_gemm_bias_act(C, A, B, bias, stream);"), std::string::npos);
  EXPECT_NE(a.cu.find("  return launch_gemm_bias_act_mapping(pick_gemm_bias_act(C, A, B, bias, stream), C, A, B, bias, stream);"),
            std::string::npos);
  EXPECT_NE(a.cu.find("const int64_t v_M = C.shape[0];"), std::string::npos);
  EXPECT_EQ(a.cu.find("estimate_cycles"), std::string::npos);  // no when(fastest): no cost model
  // mapping 1: 128 x 64 tiles, 128-deep K steps in 4 stages, 64-column wgmma.
  const std::string k1 = between(a.cu, "namespace mapping1 {", "}  // namespace mapping1");
  EXPECT_NE(k1.find("pipelined 4 deep"), std::string::npos);
  EXPECT_NE(k1.find("for (int ks = 0; ks < 8; ++ks)"), std::string::npos);
  EXPECT_NE(k1.find("loom::rt::wgmma_m64nNk16<64, __nv_bfloat16, 0, 1>("), std::string::npos);
  // One ABI for both.
  EXPECT_EQ(count(a.cu, "extern \"C\""), 7);  // loom_<entry>, its _mapping, _pick, _tune, _estimates, _mappings and _info
  EXPECT_EQ(a.header, artifact_of("gemm_bias_act").header);  // the same C ABI as the example's
  size_t s0 = a.cu.find("constexpr int kSmemBytes = "), s1 = a.cu.find("constexpr int kSmemBytes = ", s0 + 1);
  ASSERT_NE(s1, std::string::npos);
  auto smem_at = [&](size_t at) { at += std::string("constexpr int kSmemBytes = ").size(); return std::stoll(a.cu.substr(at, a.cu.find(';', at) - at)); };
  EXPECT_NE(a.cu.find("static const loom_kernel_info info = {\"gemm_bias_act\", 4, args, " +
                      std::to_string(std::max(smem_at(s0), smem_at(s1))) + ", 384};"),
            std::string::npos);
}

// when(fastest): the default and each candidate get estimate_cycles(), made of the grid, the K loop's
// trip count and the per-iteration tensor-core work and TMA bytes recorded while generating the
// kernel; the launcher runs the cheapest, the default when the SM count is unknown.
TEST(Codegen, FastestMappingsChosenByTheCostModel) {
  codegen::CudaArtifact a = artifact_of("gemm");
  for (int m = 0; m < 3; ++m) {
    const std::string ns = "namespace mapping" + std::to_string(m) + " {";
    const std::string k = between(a.cu, ns, "}  // namespace mapping" + std::to_string(m));
    ASSERT_FALSE(k.empty()) << ns;
    EXPECT_EQ(count(k, "double estimate_cycles(const loom_tensor& C, const loom_tensor& A, const loom_tensor& B, cudaStream_t stream, "
                       "int64_t sms) {"), 1) << ns;
    EXPECT_NE(k.find("const int64_t blocks = grid_n0 * grid_n1;"), std::string::npos) << ns;
    EXPECT_EQ(k.find("consumer_wg", k.find("double estimate_cycles")), std::string::npos) << "device code in the host estimate";
  }
  // Per K step: 128 x 256 x 64 FMA (2048 per cycle: 1024 cycles) against 49152 TMA bytes (48 per
  // cycle: 1024 cycles, each tensor's bytes weighted by its sector alignment); 128 x 128 x 64 (512
  // cycles) against 32768 bytes (682.7 cycles); 128 x 64 x 128 (512 cycles) against 49152 bytes.
  const std::string m0 = between(a.cu, "namespace mapping0 {", "}  // namespace mapping0");
  EXPECT_NE(m0.find("2097152 FMA and 49152 TMA bytes per iteration\n"
                    "  tile += static_cast<double>(v_6) * fmax(1024, (16384.0 * fill_A + 32768.0 * fill_B) / 48.0);"),
            std::string::npos)
      << m0;
  // Rows off 32-byte sectors cost 140% (CostModel::offsector_fill_percent), checked per call.
  EXPECT_NE(m0.find("const double fill_A = reinterpret_cast<uintptr_t>(A.data) % 32 != 0 || (A.stride[0] * 2) % 32 != 0 ? 1.4 : 1.0;"),
            std::string::npos);
  EXPECT_NE(m0.find("const double fill_B = reinterpret_cast<uintptr_t>(B.data) % 32 != 0 || (B.stride[0] * 2) % 32 != 0 ? 1.4 : 1.0;"),
            std::string::npos);
  // The multicast candidates: B's bytes are the block's half, the whole tiles landing in the block
  // bound an iteration (CostModel::intake_bytes_per_cycle), plus the cluster's cost per tile.
  const std::string m10 = between(a.cu, "namespace mapping10 {", "}  // namespace mapping10");
  EXPECT_NE(m10.find("fmax(fmax(1024, (16384.0 * fill_A + 16384.0 * fill_B) / 48.0), 49152.0 / 56.0);"), std::string::npos);
  EXPECT_NE(m10.find("tile += 3000.0;  // multicast: the cluster's blocks wait for each other (CostModel)"), std::string::npos);
  EXPECT_NE(between(a.cu, "namespace mapping1 {", "}  // namespace mapping1").find("1048576 FMA and 32768 TMA bytes per iteration"),
            std::string::npos);
  EXPECT_NE(between(a.cu, "namespace mapping2 {", "}  // namespace mapping2").find("1048576 FMA and 49152 TMA bytes per iteration"),
            std::string::npos);
  EXPECT_NE(a.cu.find("  if (v_SMS > 0) {\n    double e[28] = {}, b[28] = {};\n    e[0] = mapping0::estimate_cycles(C, A, B, stream, v_SMS);  // the default\n"
                      "    e[1] = mapping1::estimate_cycles(C, A, B, stream, v_SMS);  // when(fastest) [gemm.loom:174]\n"),
            std::string::npos)
      << a.cu;
  // Of equal estimates, the mapping that loads the fewest bytes by TMA (load_bytes: a block's share of
  // a multicast load, the blocks of whole clusters), then the first.
  EXPECT_NE(a.cu.find("    b[27] = mapping27::load_bytes(C, A, B, stream);\n    int pick = 0;\n"
                      "    for (const int i : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27})\n"
                      "      if (e[i] < e[pick] || (e[i] == e[pick] && b[i] < b[pick])) pick = i;  // of equal estimates, the fewest bytes loaded, then the first\n"),
            std::string::npos);
  EXPECT_NE(m0.find("  tile += 49152.0 * static_cast<double>(v_6);  // gemm_block: srange k in cdiv(K, W)  [gemm.loom:24]\n"
                    "  return tile * static_cast<double>(blocks);\n"),
            std::string::npos);
  // multicast(2): B's half of 32 KB a block; multicast(4, 1): a quarter; multicast(2, 2): half of each
  // panel; the blocks of every cluster, whole
  EXPECT_NE(m10.find("  tile += 32768.0 * static_cast<double>(v_6);  // gemm_block: srange k in cdiv(K, W)  [gemm.loom:24]\n"
                     "  return tile * static_cast<double>(blocks / grid_n0 * loom_cdiv(grid_n0, 2) * 2);  // multicast(2)\n"),
            std::string::npos);
  const std::string m24 = between(a.cu, "namespace mapping24 {", "}  // namespace mapping24");
  EXPECT_NE(m24.find("  tile += 24576.0 * static_cast<double>(v_6);"), std::string::npos);
  EXPECT_NE(between(a.cu, "namespace mapping25 {", "}  // namespace mapping25").find("  tile += 24576.0 * static_cast<double>(v_6);"),
            std::string::npos);
  EXPECT_NE(a.cu.find("    return pick;\n  }\n  return 0;\n}"), std::string::npos);
}

// loom_<entry>_tune (loom/tune.h; docs/artifact.md, "Tuning"): the candidates within kTuneSpread of
// the rules' estimate are timed on scratch copies of the written tensors (C: rw, its contents
// copied; the read tensors are the caller's), the fastest remembered by the call's key and used by
// the pick; LOOM_TUNE=1 tunes a key on its first call. Without when(fastest) candidates, and with
// one mapping, there is nothing to measure.
TEST(Codegen, TuningTimesTheCandidatesOnScratchOutputs) {
  codegen::CudaArtifact a = artifact_of("gemm");
  EXPECT_NE(a.cu.find("#include \"loom/host.h\"\n#include \"loom/tune.h\"\n"), std::string::npos);
  EXPECT_NE(a.cu.find("loom::host::TuneTable tuned_gemm;\n"), std::string::npos);
  EXPECT_NE(a.cu.find("loom::host::TuneKey tune_key_gemm(const loom_tensor& C, const loom_tensor& A, const loom_tensor& B) {\n"
                      "  loom::host::TuneKey key;\n  key.add(C);\n  key.add(A);\n  key.add(B);\n  return key;\n}"),
            std::string::npos);
  EXPECT_NE(a.cu.find("    if (const int tuned = tuned_gemm.find(tune_key_gemm(C, A, B)); tuned >= 0) return tuned;\n"
                      "  return rule_pick_gemm(C, A, B, stream, nullptr);\n"),
            std::string::npos);
  const std::string tune = between(a.cu, "int tune_gemm(", "int launch_gemm(");
  EXPECT_NE(tune.find("  const int rule = rule_pick_gemm(C, A, B, stream, e);\n"), std::string::npos) << tune;
  EXPECT_NE(tune.find("e[i] <= loom::host::kTuneSpread * e[rule]"), std::string::npos);
  EXPECT_NE(tune.find("  loom::host::ScratchTensor scratch_C;\n  if (scratch_C.make(C, true, stream) != LOOM_OK) return LOOM_OK;"),
            std::string::npos);
  EXPECT_EQ(tune.find("scratch_A"), std::string::npos);  // read tensors are the caller's
  EXPECT_NE(tune.find("  const int best = loom::host::measured_choice(\n"
                      "      timed, rule, [&](int i) { return launch_gemm_mapping(i, scratch_C.tensor(), A, B, stream); }, stream, &failed);\n"
                      "  if (best < 0) return failed;\n  tuned_gemm.put(key, best);\n"),
            std::string::npos)
      << tune;
  EXPECT_NE(tune.find("if (loom::host::stream_capturing(stream)) return LOOM_OK;"), std::string::npos);
  EXPECT_NE(a.cu.find("  if (loom::host::tune_from_env() && tuned_gemm.find(tune_key_gemm(C, A, B)) < 0)  // LOOM_TUNE=1\n"
                      "    if (const int st = tune_gemm(C, A, B, stream); st != LOOM_OK) return st;\n"
                      "  return launch_gemm_mapping(pick_gemm(C, A, B, stream), C, A, B, stream);\n"),
            std::string::npos);
  EXPECT_NE(a.cu.find("extern \"C\" int loom_gemm_tune(loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream) {\n"
                      "  return tune_gemm(C, A, B, stream);\n}"),
            std::string::npos);
  EXPECT_NE(a.header.find("int loom_gemm_tune(loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream);"), std::string::npos);
  codegen::CudaArtifact d = artifact_of("dual_gemm");  // one mapping
  EXPECT_NE(d.cu.find("  (void)stream;\n  return LOOM_OK;  // one mapping: nothing to choose\n}"), std::string::npos);
  EXPECT_EQ(d.cu.find("loom/tune.h"), std::string::npos);
}

// Every mapping by index: loom_<entry>_mapping runs mapping i whatever the extents (LOOM_ERR_MAPPING
// past the last), loom_<entry>_pick says which one loom_<entry> runs, loom_<entry>_mappings how many
// there are; a program of one mapping has them too (mapping 0 only).
TEST(Codegen, EveryMappingByIndex) {
  codegen::CudaArtifact a = artifact_of("gemm");
  EXPECT_NE(a.cu.find("int launch_gemm_mapping(int mapping, const loom_tensor& C, const loom_tensor& A, const loom_tensor& B, "
                      "cudaStream_t stream) {\n  switch (mapping) {\n    case 0: return mapping0::launch_gemm(C, A, B, stream);  // the default\n"),
            std::string::npos);
  EXPECT_NE(a.cu.find("    case 9: return mapping9::launch_gemm(C, A, B, stream);  // when(fastest) [gemm.loom:"), std::string::npos);
  EXPECT_NE(a.cu.find("    default: return LOOM_ERR_MAPPING;\n  }\n}"), std::string::npos);
  EXPECT_NE(a.cu.find("extern \"C\" int loom_gemm_mapping(int mapping, loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream) {\n"
                      "  return launch_gemm_mapping(mapping, C, A, B, stream);\n}"),
            std::string::npos);
  EXPECT_NE(a.cu.find("extern \"C\" int loom_gemm_pick(loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream) {\n"
                      "  return pick_gemm(C, A, B, stream);\n}"),
            std::string::npos);
  EXPECT_NE(a.cu.find("extern \"C\" int loom_gemm_mappings(void) { return 28; }"), std::string::npos);
  // loom_<entry>_estimates: every mapping's cost-model cycles for the call (0 where not weighed) and the
  // rules' pick, for benchmarks that set the model against measured times.
  EXPECT_NE(a.cu.find("extern \"C\" int loom_gemm_estimates(double* cycles, loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream) {\n"
                      "  if (cycles)\n    for (int i = 0; i < 28; ++i) cycles[i] = 0.0;\n  return rule_pick_gemm(C, A, B, stream, cycles);\n}"),
            std::string::npos);
  EXPECT_NE(a.header.find("int loom_gemm_estimates(double* cycles, loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream);"),
            std::string::npos);
  EXPECT_NE(a.header.find("int loom_gemm_mapping(int mapping, loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream);"),
            std::string::npos);
  EXPECT_NE(a.header.find("int loom_gemm_pick(loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream);"), std::string::npos);
  EXPECT_NE(a.header.find("int loom_gemm_mappings(void);"), std::string::npos);
  codegen::CudaArtifact d = artifact_of("dual_gemm");  // one mapping
  EXPECT_NE(d.cu.find("  if (mapping != 0) return LOOM_ERR_MAPPING;\n  return launch_dual_gemm(D, A, B1, B2, stream);\n}"), std::string::npos);
  EXPECT_NE(d.cu.find("extern \"C\" int loom_dual_gemm_mappings(void) { return 1; }"), std::string::npos);
  EXPECT_NE(d.cu.find("  (void)stream;\n  return 0;\n}"), std::string::npos);
  EXPECT_NE(d.cu.find("  (void)stream;\n  if (cycles) cycles[0] = 0.0;  // one mapping: nothing weighed\n  return 0;\n}"), std::string::npos);
  EXPECT_NE(d.header.find("int loom_dual_gemm_pick(loom_tensor D, loom_tensor A, loom_tensor B1, loom_tensor B2, cudaStream_t stream);"),
            std::string::npos);
}

// A condition may name the entry task's dimensions and SMS only.
TEST(Codegen, SpecializedMappingConditionErrors) {
  int line = 0;
  std::string cond = bias_act_with_condition(&line);
  const std::string from = "when(2 * cdiv(M, 128) * cdiv(N, 256) <= SMS)";
  cond.replace(cond.find(from), from.size(), "when(cdiv(M, U) < SM)");
  Generated g = generate("gemm_bias_act", cond);
  EXPECT_FALSE(g.checked);
  const std::string at = "gemm_bias_act.loom:" + std::to_string(line);
  EXPECT_NE(g.diagnostics.find(at + ":29: error: `U` in a mapping's when(...) is not a dimension of the entry task or SMS"),
            std::string::npos)
      << g.diagnostics;
  EXPECT_NE(g.diagnostics.find(at + ":34: error: `SM` in a mapping's when(...) is not a dimension of the entry task or SMS"),
            std::string::npos)
      << g.diagnostics;
  EXPECT_NE(g.diagnostics.find("hint: a condition may use the entry task's dimension names and SMS"), std::string::npos)
      << g.diagnostics;
  // A specialization that changes the entry's element types would change the C ABI.
  std::string text = read_file(example_path("gemm"));
  size_t last = text.rfind("entry(T=bf16, E=bf16)");
  text.replace(last, std::string("entry(T=bf16, E=bf16)").size(), "entry(T=f16, E=f16)");
  Generated h = generate("gemm", text);
  EXPECT_FALSE(h.checked);
  const size_t block = text.rfind("mapping sm_90a when(", last);  // the edited mapping block's line
  const std::string block_line = std::to_string(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(block), '\n') + 1);
  EXPECT_NE(h.diagnostics.find("gemm.loom:" + block_line + ":1: error: a specialized mapping must run the default's entry task `gemm` with the same "
                               "argument types (both share one C ABI)"),
            std::string::npos)
      << h.diagnostics;
}

TEST_F(CodegenGemm, TmaBarriersExpectedByProducerWaitedByConsumer) {
  std::vector<std::string> bars = tma_barriers(cu());
  ASSERT_EQ(bars.size(), 2u) << cu();
  const std::string prod = k_loop(producer()), cons = k_loop(consumer());
  ASSERT_FALSE(cons.empty()) << consumer();
  const size_t wgmma = cons.find("loom::rt::wgmma_m64nNk16<");
  ASSERT_NE(wgmma, std::string::npos) << cons;
  for (const std::string& b : bars) {
    SCOPED_TRACE(b);
    // A 3-slot ring initialized for one arrival (the expect-tx) per phase.
    EXPECT_NE(cu().find("for (int s = 0; s < 3; ++s) loom::rt::mbarrier::init(&" + b + "[s], 1);"), std::string::npos);
    EXPECT_EQ(count(prod, "arrive_expect_tx(&" + b + "["), 1) << prod;
    const std::string wait = "loom::rt::mbarrier::wait(&" + b + "[";
    EXPECT_EQ(count(cons, wait), 1) << cons;
    EXPECT_LT(cons.find(wait), wgmma) << "the consumer waits for the copy before its wgmma";
    // slot k % 3, parity (k / 3) & 1
    size_t w = cons.find(wait);
    std::string line = cons.substr(w, cons.find('\n', w) - w);
    EXPECT_NE(line.find(" % 3], ("), std::string::npos) << line;
    EXPECT_NE(line.find(" / 3) & 1);"), std::string::npos) << line;
  }
}

TEST_F(CodegenGemm, ConsumerWgmmaAndWaits) {
  const std::string loop = k_loop(consumer());
  ASSERT_FALSE(loop.empty());
  // 64 x 256 x 16 bf16 wgmma, A K-major (0), B MN-major (1); four k-steps of 16 over the 64-wide
  // K tile.
  EXPECT_EQ(count(loop, "loom::rt::wgmma_m64nNk16<256, __nv_bfloat16, 0, 1>("), 1) << loop;
  EXPECT_NE(loop.find("for (int ks = 0; ks < 4; ++ks) {"), std::string::npos) << loop;
  EXPECT_NE(loop.find("loom::rt::desc_k_major("), std::string::npos);
  EXPECT_NE(loop.find("loom::rt::desc_mn_major("), std::string::npos);
  // fence -> wgmmas -> commit -> wait<1> (the previous iteration's group), then that iteration's
  // slots are released to the producer.
  const size_t fence = loop.find("loom::rt::wgmma_fence();"), commit = loop.find("loom::rt::wgmma_commit();"),
               wait1 = loop.find("loom::rt::wgmma_wait<1>();"), arrive = loop.find("loom::rt::mbarrier::arrive(&");
  ASSERT_NE(fence, std::string::npos);
  ASSERT_NE(commit, std::string::npos);
  ASSERT_NE(wait1, std::string::npos) << loop;
  ASSERT_NE(arrive, std::string::npos) << loop;
  EXPECT_LT(fence, commit);
  EXPECT_LT(commit, wait1);
  EXPECT_LT(wait1, arrive);
  EXPECT_EQ(count(loop, "wgmma_wait<"), 1) << "no full drain inside the K loop\n" << loop;
  // After the loop: drain once (wait<0>) before the epilogue reads the accumulator.
  const std::string after = consumer().substr(consumer().find(loop) + loop.size());
  const size_t drain = after.find("loom::rt::wgmma_wait<0>();");
  const size_t store = after.find("reinterpret_cast<__nv_bfloat16*>(C.data)");  // the epilogue
  ASSERT_NE(drain, std::string::npos) << after;
  ASSERT_NE(store, std::string::npos) << after;
  EXPECT_LT(drain, store);
  // The accumulator: 128 floats per thread (64 x 256 / 128 threads), cleared before the loop.
  EXPECT_TRUE(std::regex_search(consumer(), std::regex(R"(\n +float v_\w+\[128\];\n)"))) << consumer();
}

TEST_F(CodegenGemm, HeaderDeclaresTheCAbi) {
  const std::string& h = a_->header;
  EXPECT_NE(h.find("int loom_gemm(loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream);"), std::string::npos)
      << h;
  EXPECT_NE(h.find("const loom_kernel_info* loom_gemm_info(void);"), std::string::npos) << h;
  EXPECT_NE(h.find("#include \"loom/abi.h\""), std::string::npos);
  EXPECT_NE(h.find("#ifndef LOOM_GENERATED_GEMM_H"), std::string::npos);
  EXPECT_NE(h.find("#ifdef __cplusplus\nextern \"C\" {\n#endif"), std::string::npos) << h;
  EXPECT_NE(h.find("int loom_gemm_mapping(int mapping, loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream);"),
            std::string::npos);
  EXPECT_NE(h.find("int loom_gemm_pick(loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream);"), std::string::npos);
  EXPECT_NE(h.find("int loom_gemm_mappings(void);"), std::string::npos);
  EXPECT_NE(h.find("int loom_gemm_tune(loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream);"), std::string::npos);
  // Exactly seven declarations, and nothing C cannot parse.
  int decls = 0;
  for (const std::string& l : lines_of(h))
    if (!l.empty() && l.back() == ';' && l.find("/*") == std::string::npos) ++decls;
  EXPECT_EQ(decls, 7) << h;
  EXPECT_EQ(h.find("::"), std::string::npos) << h;
  EXPECT_EQ(h.find("&"), std::string::npos) << h;
}

TEST_F(CodegenGemm, ExternCOnlyOnTheAbiFunctions) {
  EXPECT_EQ(count(cu(), "extern \"C\""), 7);
  // Top-level lines (column 0, not a comment, preprocessor line, brace or blank): before the
  // anonymous namespace none, after it only the seven ABI functions.
  const std::vector<std::string> ls = lines_of(cu());
  enum { Before, Inside, After } where = Before;
  std::vector<std::string> outside;
  for (const std::string& l : ls) {
    if (l == "namespace {") {
      EXPECT_EQ(where, Before) << "a second anonymous namespace";
      where = Inside;
      continue;
    }
    if (starts_with(l, "}  // namespace")) {
      where = After;
      continue;
    }
    if (where == Inside || l.empty() || l[0] == ' ' || l[0] == '}' || l[0] == '#' || starts_with(l, "//")) continue;
    outside.push_back(l);
  }
  EXPECT_EQ(where, After);
  ASSERT_EQ(outside.size(), 7u) << testing::PrintToString(outside);
  EXPECT_EQ(outside[0], "extern \"C\" int loom_gemm(loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream) {");
  EXPECT_EQ(outside[1], "extern \"C\" int loom_gemm_mapping(int mapping, loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream) {");
  EXPECT_EQ(outside[2], "extern \"C\" int loom_gemm_pick(loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream) {");
  EXPECT_EQ(outside[3], "extern \"C\" int loom_gemm_tune(loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream) {");
  EXPECT_EQ(outside[4], "extern \"C\" int loom_gemm_estimates(double* cycles, loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream) {");
  EXPECT_EQ(outside[5], "extern \"C\" int loom_gemm_mappings(void) { return 1; }");
  EXPECT_EQ(outside[6], "extern \"C\" const loom_kernel_info* loom_gemm_info(void) {");
  // The kernel, the launcher and the helpers are inside the namespace.
  const std::string inside = between(cu(), "namespace {", "}  // namespace");
  for (const char* sym : {"gemm_kernel(", "int launch_gemm(", "loom_cdiv(", "constexpr int kSmemBytes"})
    EXPECT_NE(inside.find(sym), std::string::npos) << sym;
}

TEST_F(CodegenGemm, MetadataAgreesWithTheKernel) {
  // kSmemBytes and kThreads are what loom_gemm_info reports.
  const std::string c = cu();
  size_t s = c.find("constexpr int kSmemBytes = ");
  ASSERT_NE(s, std::string::npos);
  s += std::string("constexpr int kSmemBytes = ").size();
  const std::string smem = c.substr(s, c.find(';', s) - s);
  EXPECT_NE(c.find("static const loom_kernel_info info = {\"gemm\", 3, args, " + smem + ", 384};"), std::string::npos) << smem;
  EXPECT_LE(std::stoll(smem), 227 * 1024);
  // align_bytes 2: with its async-copy variant the kernel runs any element-aligned bf16 tensor.
  EXPECT_NE(c.find("{\"C\", LOOM_ARG_TENSOR, LOOM_BF16, 2, {\"M\", \"N\", nullptr, nullptr, nullptr}, 2, LOOM_PRIV_RW},"),
            std::string::npos);
  EXPECT_NE(c.find("{\"A\", LOOM_ARG_TENSOR, LOOM_BF16, 2, {\"M\", \"K\", nullptr, nullptr, nullptr}, 2, LOOM_PRIV_R},"),
            std::string::npos);
}


}  // namespace
}  // namespace loom
