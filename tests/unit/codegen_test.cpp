// Tests of the CUDA back end (src/codegen/cuda.h; docs/codegen.md):
// - goldens of the generated .cu and .h for examples/gemm and examples/batched_gemm after the whole
//   pipeline (tests/golden/codegen/<name>.cu, .h; UPDATE_GOLDEN=1 regenerates);
// - FileCheck-style facts on the generated GEMM: in the producer's K loop one TMA box for A and four
//   for B (128-byte swizzle slices of a 256-column tile), each behind an expect-tx arrival on its
//   barrier; the register split (setmaxnreg_dec<40> / setmaxnreg_inc<232>); in the consumer's K loop
//   a wait on every TMA barrier before the wgmma sequence, the 64x256x16 bf16 wgmma with B
//   MN-major, and wgmma_wait<1> after the commit; the C ABI: the header's two declarations and
//   `extern "C"` only on those two functions, everything else in an anonymous namespace;
// - programs the back end cannot lower yet (or the middle end rejects) give a CompileError with a
//   location, never an InternalError or a crash; flash_attention_2 lowers (softmax in registers);
// - `loom compile FILE -o DIR`, `--emit=cuda` and `--emit=header` through the built binary.
// Whether the generated code compiles with nvcc (and two kernels link into one program) is the
// CTest `codegen_nvcc_compile` (scripts/codegen_compile_check.sh).
#include "codegen/cuda.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <regex>
#include <sstream>
#include <algorithm>
#include <string>
#include <vector>

#include "passes/pipeline.h"
#include "codegen_util.h"
#include "test_util.h"

namespace loom {
namespace {

using test::check_text;
using test::expect_golden;
using test::read_file;
using test::source_dir;

std::string example_path(const std::string& name) { return source_dir() + "/examples/" + name + "/" + name + ".loom"; }

// The whole pipeline and the back end, as `loom compile FILE -o DIR` runs them (the source name in
// the generated comments is the file name, as the CLI gives it).
struct Generated {
  bool checked = false;
  std::string diagnostics;                // the checker's, when it refused the program
  std::optional<codegen::CudaArtifact> artifact;
  std::optional<Diagnostic> error;        // a CompileError from the middle end or the back end
  std::string internal;                   // an InternalError or other exception: always a bug
};

// `default_only`: the default mapping's kernel alone (its specializations dropped).
Generated generate(const std::string& name, const std::string& text = "", bool default_only = false) {
  Generated g;
  auto r = check_text(text.empty() ? read_file(example_path(name)) : text, name + ".loom");
  g.checked = r.ok && r.tree.has_value();
  g.diagnostics = r.diagnostics;
  if (!g.checked) return g;
  if (default_only) r.program.specializations.clear();
  try {
    // Every mapping (the default and its specializations), as the CLI does.
    std::vector<MappingUnit> units = mapping_units(r.program, *r.tree);
    std::vector<ir::Function> fs;
    for (const MappingUnit& u : units) fs.push_back(lower_to_event_ir(u.program, u.tree));
    std::vector<codegen::MappingKernel> kernels;
    for (size_t i = 0; i < units.size(); ++i)
      kernels.push_back({&fs[i], units[i].when ? format_condition(*units[i].when) + " [" + name + ".loom:" +
                                                     std::to_string(units[i].when->loc.line) + "]"
                                               : ""});
    g.artifact = codegen::generate_cuda(kernels, name + ".loom");
  } catch (const CompileError& e) {
    g.error = e.diagnostic;
  } catch (const InternalError& e) {
    g.internal = std::string("InternalError: ") + e.what();
  } catch (const std::exception& e) {
    g.internal = std::string("exception: ") + e.what();
  }
  return g;
}

codegen::CudaArtifact artifact_of(const std::string& name, bool default_only = false) {
  Generated g = generate(name, "", default_only);
  EXPECT_TRUE(g.checked) << g.diagnostics;
  EXPECT_TRUE(g.internal.empty()) << g.internal;
  EXPECT_FALSE(g.error) << (g.error ? g.error->message : "");
  return g.artifact.value_or(codegen::CudaArtifact{});
}

// examples/<name> with every occurrence of `from` replaced.
std::string example_edited(const std::string& name, const std::string& from, const std::string& to) {
  std::string text = read_file(example_path(name));
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  for (; at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

// examples/gemm with every occurrence of `from` (in the default mapping and the specializations)
// replaced.
std::string gemm_edited(const std::string& from, const std::string& to) { return example_edited("gemm", from, to); }

// examples/gemm_bias_act with a written condition in place of its when(fastest) candidates: 128 x 64
// tiles with 128-deep K steps when 128 x 256 ones would leave more than half of the SMs idle (the
// mapping the example had before the cost model chose its tiles). *line: the line of that block.
std::string bias_act_with_condition(int* line) {
  std::string text = read_file(example_path("gemm_bias_act"));
  text = text.substr(0, text.find("// Other tile shapes"));
  *line = 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  return text +
         "mapping sm_90a when(2 * cdiv(M, 128) * cdiv(N, 256) <= SMS) {\n"
         "  instance host = gemm_bias_act_host on HOST mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(U=128, V=64)\n"
         "      call(gemm_bias_act: block) entry(T=bf16, E=bf16);\n"
         "  instance block = gemm_bias_act_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(W=128)\n"
         "      call(gemm: gemm_tile, clear: clear_tile, bias_act: act_tile) warpspecialize pipeline(4)\n"
         "      smem(227KB);\n"
         "  instance gemm_wg = gemm_mma on WARPGROUP mem(NONE, SHARED, SHARED) tune(N_MMA=64)\n"
         "      call(gemm: gemm_warp);\n"
         "  instance gemm_warp = gemm_mma on WARP mem(NONE, SHARED, SHARED) tune(N_MMA=64)\n"
         "      call(gemm: gemm_thread);\n"
         "  instance clear_wg = clear_mma on WARPGROUP mem(NONE) tune(N_MMA=64) call(clear: clear_warp);\n"
         "  instance clear_warp = clear_mma on WARP mem(NONE) tune(N_MMA=64) call(clear: clear_thread);\n"
         "  instance act_wg = bias_act_mma on WARPGROUP mem(GLOBAL, NONE, GLOBAL) tune(N_MMA=64)\n"
         "      call(bias_act: act_warp);\n"
         "  instance act_warp = bias_act_mma on WARP mem(GLOBAL, NONE, GLOBAL) tune(N_MMA=64)\n"
         "      call(bias_act: act_thread);\n"
         "}\n";
}

// ---- text helpers ----------------------------------------------------------------------------------------

// The generated text without the async-copy variants (each mapping's `namespace async_copy` and the
// comment before it): the TMA kernels the facts below are about. Codegen.AsyncCopyVariant* look at
// the variants.
const char* const kVariantBegin = "// The async-copy variant: the same kernel";
const char* const kVariantEnd = "// The TMA kernel.\n";
std::string tma_kernels(std::string cu) {
  for (size_t a = cu.find(kVariantBegin); a != std::string::npos; a = cu.find(kVariantBegin, a)) {
    const size_t b = cu.find(kVariantEnd, a);
    if (b == std::string::npos) break;
    cu.erase(a, b + std::string(kVariantEnd).size() - a);
  }
  return cu;
}
codegen::CudaArtifact tma_kernels(codegen::CudaArtifact a) {
  a.cu = tma_kernels(a.cu);
  return a;
}
// The first async-copy variant's text (namespace async_copy { ... }).
std::string first_variant(const std::string& cu) {
  const size_t a = cu.find("namespace async_copy {");
  if (a == std::string::npos) return "";
  return cu.substr(a, cu.find("}  // namespace async_copy", a) - a);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The text from the line containing `from` up to (not including) the line containing `to`.
std::string between(const std::string& text, const std::string& from, const std::string& to) {
  size_t a = text.find(from);
  if (a == std::string::npos) return "";
  a = text.rfind('\n', a) + 1;
  size_t b = text.find(to, a + from.size());
  if (b == std::string::npos) return "";
  b = text.rfind('\n', b) + 1;
  return text.substr(a, b - a);
}

// The brace-balanced `for (...) { ... }` that starts at `at`, from its header to its closing brace.
std::string loop_at(const std::string& text, size_t at) {
  if (at == std::string::npos) return "";
  size_t open = text.find('{', at);
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (text[i] == '{') ++depth;
    if (text[i] == '}' && --depth == 0) return text.substr(at, i + 1 - at);
  }
  return "";
}

// The pipelined K loop of a role's code: the generated comment names the `srange` and says
// "pipelined N deep"; the loop is the next `for`.
std::string k_loop(const std::string& section) {
  size_t c = section.find("  pipelined 3 deep");
  if (c == std::string::npos) return "";
  return loop_at(section, section.find("for (", c));
}

// The names of the barriers whose declaration comment says they complete TMA copies:
//   uint64_t* const bar_x = reinterpret_cast<uint64_t*>(smem + 147488);  // [3] TMA %Ap.1 -> %A.1 landed
std::vector<std::string> tma_barriers(const std::string& cu) {
  std::vector<std::string> out;
  for (const std::string& l : lines_of(cu)) {
    const std::string decl = "uint64_t* const ";
    size_t d = l.find(decl);
    if (d == std::string::npos || l.find("] TMA ") == std::string::npos) continue;
    size_t b = d + decl.size();
    out.push_back(l.substr(b, l.find(' ', b) - b));
  }
  return out;
}

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

// Staging tiles that do not fit the block's budget leave the epilogue storing from registers.
TEST(Codegen, EpilogueWithoutRoomForStagingStoresDirectly) {
  std::string text = read_file(example_path("gemm"));
  const std::string from = "warpspecialize pipeline(3)";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "warpspecialize pipeline(4)");  // 4 x 48 KB + 64 KB > 227 KB
  Generated g = generate("gemm", text);
  ASSERT_TRUE(g.artifact) << (g.error ? g.error->message : g.internal);
  // The default mapping's kernel (the small-problem specialization, 4 x 48 KB, still stages).
  const std::string k0 = between(g.artifact->cu, "namespace mapping0 {", "}  // namespace mapping0");
  ASSERT_FALSE(k0.empty());
  EXPECT_EQ(k0.find("staged"), std::string::npos);
  EXPECT_EQ(k0.find("loom_stage"), std::string::npos);
  EXPECT_EQ(count(k0, "tma_store"), 0);
  EXPECT_NE(k0.find("*reinterpret_cast<uint4*>(p) ="), std::string::npos);
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
  EXPECT_EQ(count(a.cu, "extern \"C\""), 5);  // loom_<entry>, its _mapping, _pick, _mappings and _info
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
  // The multicast candidates: B's bytes are the block's half, plus the cluster's cost per tile.
  const std::string m10 = between(a.cu, "namespace mapping10 {", "}  // namespace mapping10");
  EXPECT_NE(m10.find("fmax(1024, (16384.0 * fill_A + 16384.0 * fill_B) / 48.0);"), std::string::npos);
  EXPECT_NE(m10.find("tile += 3000.0;  // multicast: the cluster's blocks wait for each other (CostModel)"), std::string::npos);
  EXPECT_NE(between(a.cu, "namespace mapping1 {", "}  // namespace mapping1").find("1048576 FMA and 32768 TMA bytes per iteration"),
            std::string::npos);
  EXPECT_NE(between(a.cu, "namespace mapping2 {", "}  // namespace mapping2").find("1048576 FMA and 49152 TMA bytes per iteration"),
            std::string::npos);
  EXPECT_NE(a.cu.find("  if (v_SMS > 0) {\n    int pick = 0;\n    double best = mapping0::estimate_cycles(C, A, B, stream, v_SMS);\n"
                      "    if (const double e = mapping1::estimate_cycles(C, A, B, stream, v_SMS); e < best) {  // when(fastest) [gemm.loom:123]\n"),
            std::string::npos)
      << a.cu;
  EXPECT_NE(a.cu.find("      pick = 14;\n    }\n    return pick;\n  }\n  return 0;\n}"), std::string::npos);
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
  EXPECT_NE(a.cu.find("extern \"C\" int loom_gemm_mappings(void) { return 15; }"), std::string::npos);
  EXPECT_NE(a.header.find("int loom_gemm_mapping(int mapping, loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream);"),
            std::string::npos);
  EXPECT_NE(a.header.find("int loom_gemm_pick(loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream);"), std::string::npos);
  EXPECT_NE(a.header.find("int loom_gemm_mappings(void);"), std::string::npos);
  codegen::CudaArtifact d = artifact_of("dual_gemm");  // one mapping
  EXPECT_NE(d.cu.find("  if (mapping != 0) return LOOM_ERR_MAPPING;\n  return launch_dual_gemm(D, A, B1, B2, stream);\n}"), std::string::npos);
  EXPECT_NE(d.cu.find("extern \"C\" int loom_dual_gemm_mappings(void) { return 1; }"), std::string::npos);
  EXPECT_NE(d.cu.find("  (void)stream;\n  return 0;\n}"), std::string::npos);
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
  EXPECT_NE(h.diagnostics.find("gemm.loom:373:1: error: a specialized mapping must run the default's entry task `gemm` with the same "
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
  // Exactly five declarations, and nothing C cannot parse.
  int decls = 0;
  for (const std::string& l : lines_of(h))
    if (!l.empty() && l.back() == ';' && l.find("/*") == std::string::npos) ++decls;
  EXPECT_EQ(decls, 5) << h;
  EXPECT_EQ(h.find("::"), std::string::npos) << h;
  EXPECT_EQ(h.find("&"), std::string::npos) << h;
}

TEST_F(CodegenGemm, ExternCOnlyOnTheAbiFunctions) {
  EXPECT_EQ(count(cu(), "extern \"C\""), 5);
  // Top-level lines (column 0, not a comment, preprocessor line, brace or blank): before the
  // anonymous namespace none, after it only the five ABI functions.
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
  ASSERT_EQ(outside.size(), 5u) << testing::PrintToString(outside);
  EXPECT_EQ(outside[0], "extern \"C\" int loom_gemm(loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream) {");
  EXPECT_EQ(outside[1], "extern \"C\" int loom_gemm_mapping(int mapping, loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream) {");
  EXPECT_EQ(outside[2], "extern \"C\" int loom_gemm_pick(loom_tensor C, loom_tensor A, loom_tensor B, cudaStream_t stream) {");
  EXPECT_EQ(outside[3], "extern \"C\" int loom_gemm_mappings(void) { return 1; }");
  EXPECT_EQ(outside[4], "extern \"C\" const loom_kernel_info* loom_gemm_info(void) {");
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
  EXPECT_EQ(count(a.cu, "extern \"C\""), 5);  // loom_<entry>, its _mapping, _pick, _mappings and _info
  // Its own kernel and launcher names: both kernels link into one program.
  EXPECT_NE(a.cu.find("batched_gemm_kernel("), std::string::npos);
  EXPECT_NE(a.cu.find("int launch_batched_gemm("), std::string::npos);
}

// add_gemm (E = A B + C D): the L loop continues the K loop's ring (rings.cpp): one running
// counter, the K loop's TMA and release barriers, and the producer waits once per tile for the
// consumers to finish the K loop (their arrival after it) before it overwrites the slots.
TEST(Codegen, AddGemmOneRingForBothLoops) {
  codegen::CudaArtifact a = tma_kernels(artifact_of("add_gemm"));
  a.cu = between(a.cu, "namespace mapping0 {", "}  // namespace mapping0");  // the default's 128 x 256 tiles
  auto has = [&](const std::string& s) { return a.cu.find(s) != std::string::npos; };
  EXPECT_EQ(count(a.cu, "int64_t v_e_1_base = 0;"), 2);  // one counter per role, none for the L loop
  EXPECT_FALSE(has("v_e_6_base"));
  EXPECT_EQ(count(a.cu, "mbarrier::init(&bar_"), 4);  // release, K loop done, two TMA rings
  EXPECT_TRUE(has("const int64_t v_slot_1 = (v_e_1_base + v_l) % v_c3;  // ring slot"));
  EXPECT_TRUE(has("loom::rt::mbarrier::wait(&bar_v_e_1[0], tile_iter & 1);"));
  EXPECT_TRUE(has("if (loom::rt::lane_id() == 0) loom::rt::mbarrier::arrive(&bar_v_e_1[0]);"));
  EXPECT_TRUE(has("&tm_C_2, &bar_v_e_2[(v_e_1_base + v_l) % 3]"));
  EXPECT_TRUE(has("loom::rt::mbarrier::wait(&bar_v_e_3[(v_e_1_base + v_l) % 3], ((v_e_1_base + v_l) / 3) & 1);"));
  EXPECT_TRUE(has("loom_stage"));  // 144 KB of rings leave room for the staged epilogue
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

// gemm_residual's C staged in SHARED (smem_fragments.cpp): the DMA role TMA-loads the tile after the
// K loop's loads, the consumers wait on its barrier, read their fragments with ldmatrix and free the
// buffer for the next tile; a shared tile without the 128-byte swizzle is a located user error.
TEST(Codegen, ResidualReadFromSharedWithLdmatrix) {
  codegen::CudaArtifact a = artifact_of("gemm_residual");
  EXPECT_EQ(count(a.cu, "&tm_C_2, &bar_v_e_6[0]"), 2);  // two 64-column boxes of the 128 x 128 tile
  EXPECT_NE(a.cu.find("loom::rt::mbarrier::wait(&bar_v_e_6[0], tile_iter & 1);"), std::string::npos);
  EXPECT_NE(a.cu.find("loom::rt::ldmatrix_x4(base + loom::rt::k_major_offset(loom::Swizzle::B128, 128, mrow, col0 + 8 * c), w);"),
            std::string::npos);
  EXPECT_NE(a.cu.find("loom::rt::mbarrier::arrive(&bar_free_v_e_6[0]);"), std::string::npos);
  EXPECT_NE(a.cu.find("(static_cast<float>(v_C_3[r]) * v_alpha)"), std::string::npos);
  std::string text = read_file(example_path("gemm_residual"));
  const std::string from = "layout(C: row_major swizzle128)";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "layout(C: row_major swizzle64)");
  Generated g = generate("gemm_residual", text);
  ASSERT_TRUE(g.error.has_value()) << g.internal;
  EXPECT_TRUE(g.error->loc.valid());
  EXPECT_EQ(g.error->message,
            "the CUDA back end cannot lower a shared -> register copy from a shared tile without the row-major 128-byte swizzle yet "
            "(from `res_warp: residual(Dp[t], Xp[t], Cp[t], Rp[t], alpha)`)");
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
  EXPECT_EQ(count(g.artifact->cu, "loom::rt::wgmma_m64nNk16<256, __half, 0, 1>("), 4);  // 128 x 256, without and with multicast
  EXPECT_EQ(count(g.artifact->cu, "loom::rt::wgmma_m64nNk16<64, __half, 0, 1>("), 8);  // the 128 x 64 mappings (one split), 64 x 64 split and 64 x 64
  EXPECT_NE(g.artifact->cu.find("reinterpret_cast<__half*>(C.data)"), std::string::npos);  // the epilogue
  EXPECT_NE(g.artifact->cu.find("if (C.dtype != LOOM_F16) return LOOM_ERR_DTYPE;"), std::string::npos);
  EXPECT_NE(g.artifact->cu.find("s.dtype = loom::host::TmaDtype::F16;"), std::string::npos);
  EXPECT_EQ(count(g.artifact->cu, "LOOM_BF16"), 0);
}

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
  EXPECT_EQ(count(g.cu, "namespace async_copy {"), 15);  // one per mapping: the default and fourteen when(fastest)
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
