// Tests of the CUDA back end's async-copy variant (async_copy.cpp: the kernel for tensors the TMA
// cannot address) and of `loom compile FILE -o DIR`, `--emit=cuda` and `--emit=header` through the
// built binary. Helpers: codegen_test_util.h.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>
#include <unistd.h>

#include "codegen_test_util.h"

namespace loom {
namespace {

using namespace codegen_test;

// ---- the async-copy variant (async_copy.cpp; docs/codegen.md) ---------------------------------------------

// gemm's default mapping: the variant lowers the same copies with cp.async by all 128 producer
// threads into the same tiles, each barrier counting 128 arrivals, and the consumers fence the
// generic writes before the wgmma reads them; no TMA and no staging anywhere in it.
TEST(Codegen, AsyncCopyVariantProducer) {
  const codegen::CudaArtifact a = artifact_of("gemm", /*default_only=*/true);
  const std::string v = first_variant(a.cu);
  ASSERT_FALSE(v.empty()) << a.cu;
  EXPECT_EQ(count(a.cu, "namespace async_copy {"), 1);
  EXPECT_LT(a.cu.find("namespace async_copy {"), a.cu.find("// The TMA kernel."));
  EXPECT_EQ(count(v, "tma_"), 0) << v;  // no TMA loads, stores, tensor maps or their waits
  EXPECT_EQ(count(v, "CUtensorMap"), 0);
  EXPECT_EQ(count(v, "loom_stage"), 0);
  EXPECT_EQ(count(v, "elect_one_sync"), 0);  // every producer thread copies
  const std::string prod = between(v, "// ---- producer", "// ---- consumer");
  EXPECT_NE(prod.find("loom::rt::setmaxnreg_dec<40>();"), std::string::npos);  // the mapping's register split
  // One call per copy: A's 128 x 64 tile and B's 64 x 256 tile (four 64-column slices, as TMA's boxes).
  EXPECT_EQ(count(prod, "loom::rt::async_copy_tile<__nv_bfloat16, loom::Swizzle::B128, 128, 64, 128>(v_A_stages + "), 1) << prod;
  EXPECT_EQ(count(prod, "loom::rt::async_copy_tile<__nv_bfloat16, loom::Swizzle::B128, 64, 256, 128>(v_B_stages + "), 1) << prod;
  EXPECT_EQ(count(prod, "loom::rt::async_copy_arrive(&bar_"), 2);
  // Zero fill past the tensor's edge: rows and columns inside, from the tensor's extents.
  EXPECT_NE(prod.find("const int64_t rows_in = A.shape[0] - (v_Ap_o0);"), std::string::npos) << prod;
  EXPECT_NE(prod.find("const int64_t cols_in = A.shape[1] - (v_Ap_1_o1);"), std::string::npos) << prod;
  EXPECT_EQ(count(v, "[s], 128);\n"), 2) << v;  // mbarrier::init of the two copies' rings, 128 arrivals per phase
  const std::string cons = between(v, "// ---- consumer", "// Checks every argument");
  const size_t wait = cons.find(": async copy landed"), fence = cons.find("loom::rt::fence_proxy_async_shared();"),
               mma = cons.find("loom::rt::wgmma_m64nNk16<");
  ASSERT_NE(wait, std::string::npos) << cons;
  EXPECT_LT(wait, fence);
  EXPECT_LT(fence, mma);
  // Direct stores as wide as the address allows.
  EXPECT_NE(cons.find("loom::rt::store_16_bytes(p, mine[0], mine[1], mine[2], mine[3]);"), std::string::npos);
  EXPECT_EQ(cons.find("*reinterpret_cast<uint4*>(p)"), std::string::npos);
}

// The launchers: the TMA kernel's hands every call it cannot address to the variant; the variant's
// refuses only a base that is not element-aligned; the metadata reports the element size.
TEST(Codegen, AsyncCopyVariantLaunch) {
  const codegen::CudaArtifact a = artifact_of("gemm", /*default_only=*/true);
  const std::string v = first_variant(a.cu), tma = tma_kernels(a.cu);
  for (const char* P : {"C", "A", "B"}) {
    const std::string p(P);
    EXPECT_NE(tma.find("if ((" + p + ".stride[d] * 2) % 16 != 0) return async_copy::launch_gemm(C, A, B, stream);"), std::string::npos) << p;
    EXPECT_NE(tma.find("if (reinterpret_cast<uintptr_t>(" + p + ".data) % 16 != 0) return async_copy::launch_gemm(C, A, B, stream);"),
              std::string::npos) << p;
    EXPECT_NE(v.find("if (reinterpret_cast<uintptr_t>(" + p + ".data) % 2 != 0) return LOOM_ERR_ALIGN;"), std::string::npos) << p;
    EXPECT_NE(v.find("if (" + p + ".stride[1] != 1) return LOOM_ERR_STRIDE;"), std::string::npos) << p;
  }
  // Left in the TMA launcher: only a tensor map that fails to encode anyway.
  EXPECT_EQ(count(tma, "return LOOM_ERR_ALIGN"), count(tma, "encode_tensor_map(&"));
  EXPECT_EQ(count(v, "% 16"), 0) << v;
  EXPECT_EQ(count(a.cu, "{\"M\", \"N\", nullptr, nullptr, nullptr}, 2, LOOM_PRIV_RW}"), 1) << a.cu;  // C: align_bytes 2
  // The PyTorch binding keeps 16 (its checks, and the padding of the outputs it allocates, which
  // keeps them on the TMA kernel): docs/pytorch.md.
  for (const codegen::AbiArg& arg : a.signature.args) EXPECT_EQ(arg.align_bytes, 16) << arg.name;
}

// Each mapping has its own variant, inside its namespace; batched_gemm's rank-3 copies read zeros for a
// batch index past the extent.
TEST(Codegen, AsyncCopyVariantPerMapping) {
  const codegen::CudaArtifact g = artifact_of("gemm");
  EXPECT_EQ(count(g.cu, "namespace async_copy {"), 28);  // one per mapping: the default and 27 when(fastest)
  EXPECT_NE(between(g.cu, "namespace mapping1 {", "}  // namespace mapping1").find("namespace async_copy {"), std::string::npos);
  const codegen::CudaArtifact b = artifact_of("batched_gemm");
  EXPECT_NE(first_variant(b.cu).find("const int64_t rows_in = ((0 + v_b)) < A.shape[0] ? A.shape[1] - (v_Ap_o0) : 0;"),
            std::string::npos)
      << first_variant(b.cu);
}

// ---- the CLI -------------------------------------------------------------------------------------------

using test::Cli;
using test::run_loom;

std::filesystem::path fresh_dir(const std::string& name) {
  std::filesystem::path d =
      std::filesystem::path(testing::TempDir()) / ("loom_codegen_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  return d;
}

TEST(CodegenCli, CompileWritesTheArtifact) {
  const std::filesystem::path dir = fresh_dir("artifact") / "nested";  // created by loom
  Cli r = run_loom("compile " + example_path("gemm") + " -o " + dir.string());
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "");
  ASSERT_TRUE(std::filesystem::exists(dir / "gemm.cu"));
  ASSERT_TRUE(std::filesystem::exists(dir / "gemm.h"));
  // The same text as the library call (and so as the goldens).
  codegen::CudaArtifact a = artifact_of("gemm");
  EXPECT_EQ(read_file(dir / "gemm.cu"), a.cu);
  EXPECT_EQ(read_file(dir / "gemm.h"), a.header);
  // Named after the entry task.
  Cli b = run_loom("compile " + example_path("batched_gemm") + " -o " + dir.string());
  ASSERT_EQ(b.status, 0);
  EXPECT_TRUE(std::filesystem::exists(dir / "batched_gemm.cu"));
  EXPECT_TRUE(std::filesystem::exists(dir / "batched_gemm.h"));
  std::filesystem::remove_all(dir.parent_path());
}

TEST(CodegenCli, EmitHeaderAndCudaToStdout) {
  codegen::CudaArtifact a = artifact_of("gemm");
  Cli h = run_loom("compile " + example_path("gemm") + " --emit=header");
  ASSERT_EQ(h.status, 0);
  EXPECT_EQ(h.out, a.header);
  Cli c = run_loom("compile " + example_path("gemm") + " --emit=cuda");
  ASSERT_EQ(c.status, 0);
  EXPECT_EQ(c.out, a.cu);
  // From stdin the comments name <stdin>.
  Cli s = run_loom("compile - --emit=header < " + example_path("gemm"));
  ASSERT_EQ(s.status, 0);
  EXPECT_NE(s.out.find("Generated by loom from <stdin>"), std::string::npos) << s.out;
}

TEST(CodegenCli, EmitHeaderToFile) {
  const std::filesystem::path dir = fresh_dir("header");
  std::filesystem::create_directories(dir);
  Cli r = run_loom("compile " + example_path("gemm") + " --emit=header -o " + (dir / "out.h").string());
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(read_file(dir / "out.h"), artifact_of("gemm").header);
  std::filesystem::remove_all(dir);
}

TEST(CodegenCli, UnsupportedProgramExitsOneAndWritesNothing) {
  const std::filesystem::path dir = fresh_dir("unsupported");
  std::filesystem::create_directories(dir);
  const std::string err = (dir / "stderr.txt").string();
  const std::string bad = test::unsupported_program_file();
  Cli r = run_loom("compile " + bad + " -o " + (dir / "out").string(), err);
  EXPECT_EQ(r.status, 1);
  EXPECT_FALSE(std::filesystem::exists(dir / "out" / "mha.cu"));
  const std::string text = read_file(err);
  EXPECT_NE(text.find("fa3_pingpong.loom:"), std::string::npos) << text;
  EXPECT_NE(text.find(": error: the CUDA back end cannot lower "), std::string::npos) << text;
  EXPECT_EQ(text.find("internal"), std::string::npos) << text;
  // The same as JSON.
  Cli j = run_loom("compile " + bad + " --emit=cuda --diagnostics=json", err);
  EXPECT_EQ(j.status, 1);
  EXPECT_NE(read_file(err).find("\"message\""), std::string::npos);
  std::filesystem::remove_all(dir);
}


}  // namespace
}  // namespace loom
