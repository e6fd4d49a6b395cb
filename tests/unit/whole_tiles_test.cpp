// Loop versioning on whole tiles (src/codegen/whole_tiles.cpp, docs/codegen.md "whole_tiles.cpp"):
// - examples/flash_attention_2: the K/V loop's compute body comes twice, behind a guard that every
//   clipped extent of the iteration is its block; in the whole-tile copy the extents are the block
//   (the row operations' branches fold away), in the other they are clipped as before; both
//   copies hold the same statements otherwise, and the deferred mma's (iteration k - 1) extent is
//   replaced too;
// - a loop whose body does not branch on its own clipped extent (examples/gemm's K loop), whose
//   only such branch packs A fragments (examples/relu_gemm's K loop), or whose body holds a loop
//   (examples/gemm_reduce_shared's column loop around its K loop) is not versioned;
// - the DMA role's loop is never versioned.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "codegen_util.h"

namespace loom {
namespace {

using test::compile_mappings;
using test::count_of;
using test::example_text;

// The text between `from` (first occurrence at or after pos) and the matching close brace of the
// block it opens.
// The first TMA kernel of the artifact (the default mapping's), up to the next kernel.
std::string first_tma_kernel(const std::string& cu) {
  const size_t p = cu.find("// The TMA kernel.");
  const size_t own = cu.find("__global__", p);
  const size_t next = cu.find("__global__", own + 1);
  return cu.substr(p, next == std::string::npos ? std::string::npos : next - p);
}

std::string block_after(const std::string& s, const std::string& from, size_t pos = 0) {
  size_t b = s.find(from, pos);
  if (b == std::string::npos) return "";
  const size_t open = s.find('{', b), close = test::closing_brace(s, open);
  return close == std::string::npos ? "" : s.substr(open, close + 1 - open);
}

TEST(WholeTiles, AttentionBodyTwiceBehindTheWholeTileGuard) {
  test::CompiledMappings c = compile_mappings(example_text("flash_attention_2"), "mha");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string tma = first_tma_kernel(c.artifact->cu);
  const std::string guard = "const bool v_j_whole = (v_j + 1) * v_BR <= Kt.shape[2] && (v_j + 1) * v_BR <= V.shape[1];";
  ASSERT_NE(tma.find(guard), std::string::npos) << tma.substr(0, 4000);
  const size_t at = tma.find(guard);
  const std::string whole = block_after(tma, "if (v_j_whole) {", at);
  const std::string clipped = block_after(tma, "} else {", at + whole.size());
  ASSERT_FALSE(whole.empty());
  ASSERT_FALSE(clipped.empty());
  // The whole-tile copy: the key tile's extent is the block, also under the deferred mma's index.
  EXPECT_EQ(count_of(whole, "loom_clip(Kt.shape[2], (v_j * v_BR), v_BR)"), 0);
  EXPECT_EQ(count_of(whole, "loom_clip(V.shape[1], (v_j * v_BR), v_BR)"), 0);
  EXPECT_GE(count_of(whole, "const int64_t v_Kp_1_e1 = v_BR;"), 2);
  EXPECT_NE(whole.find("const int64_t v_j = v_j_deferred;"), std::string::npos);
  // The clipped copy is the body as it was.
  EXPECT_GE(count_of(clipped, "loom_clip(Kt.shape[2], (v_j * v_BR), v_BR)"), 2);
  // Otherwise the same lines: undo the replacement and compare.
  std::string undone = std::regex_replace(whole, std::regex(R"(= v_BR;)"), "= loom_clip(Kt.shape[2], (v_j * v_BR), v_BR);");
  std::string redone = std::regex_replace(clipped, std::regex(R"(= loom_clip\((Kt\.shape\[2\]|V\.shape\[1\]), \(v_j \* v_BR\), v_BR\);)"),
                                          "= loom_clip(Kt.shape[2], (v_j * v_BR), v_BR);");
  EXPECT_EQ(undone, redone);
  // The row operations still carry both forms (the C++ compiler folds the whole copy's).
  EXPECT_EQ(count_of(whole, "if (ncols >= 128) {"), count_of(clipped, "if (ncols >= 128) {"));
  EXPECT_GE(count_of(whole, "if (ncols >= 128) {"), 2);
}

TEST(WholeTiles, LoopsWithoutRowReductionBranchesStayAsTheyWere) {
  for (const char* name : {"gemm", "relu_gemm", "gemm_reduce_shared"}) {
    const std::string entry = std::string(name) == "gemm_reduce_shared" ? "gemm_reduce" : name;
    test::CompiledMappings c = compile_mappings(example_text(name), entry);
    ASSERT_TRUE(c.artifact) << name << ": " << (c.error ? c.error->message : "");
    EXPECT_EQ(c.artifact->cu.find("_whole"), std::string::npos) << name;
  }
  // relu_gemm's K loop does branch on its clipped K extent (the A fragments' mask), as before.
  test::CompiledMappings r = compile_mappings(example_text("relu_gemm"), "relu_gemm");
  ASSERT_TRUE(r.artifact);
  EXPECT_NE(r.artifact->cu.find("pair_mask(loom::rt::acc_col(tid, 2 * i), ncols)"), std::string::npos);
}

TEST(WholeTiles, TheDmaRoleIsNotVersioned) {
  test::CompiledMappings c = compile_mappings(example_text("flash_attention_2"), "mha");
  ASSERT_TRUE(c.artifact) << (c.error ? c.error->message : "");
  const std::string tma = first_tma_kernel(c.artifact->cu);
  const std::string dma = tma.substr(0, tma.find("v_j_whole"));
  // The DMA role comes first in the kernel; its K/V loop has no guard of its own.
  EXPECT_NE(dma.find("for (int64_t v_j = 0; v_j < v_6; ++v_j) {"), std::string::npos);
  EXPECT_EQ(count_of(tma, "const bool v_j_whole"), 1);
}

}  // namespace
}  // namespace loom
