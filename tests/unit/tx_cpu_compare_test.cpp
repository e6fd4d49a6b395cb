// `loom run --cpu x.tx`: the interpreter against the lowered programs on the CPU executor
// (src/tx/cpu_compare.h). Every contraction example agrees at shapes that are not tile multiples;
// deliberately wrong programs (a dropped bias, K step, layout, prologue or a wrong activation) are
// caught; what cannot be compared is a located error.
#include "tx/cpu_compare.h"

#include <gtest/gtest.h>

#include "tx/cli.h"
#include "tx/lower.h"
#include "tx/recognize.h"
#include "tx_test_util.h"

namespace loom::test {
namespace {

const char* kSizes = "M=67,N=45,K=37,K2=19,L=3,T=13,D=21,F=29";

tx::TxCommand run_command(const std::string& example, const std::string& sizes = kSizes) {
  tx::TxCommand c;
  c.command = "run";
  c.path = "examples/tx/" + example + ".tx";
  c.text = read_file(source_dir() + "/" + c.path);
  c.sizes = sizes;
  c.seed = 7;
  return c;
}

TEST(TxCpuCompare, EveryContractionExampleMatchesItsLoweredPrograms) {
  for (const char* ex : {"gemm", "batched_gemm", "relu_gemm", "gemm_bias_relu", "add_gemm", "mlp"}) {
    SCOPED_TRACE(ex);
    std::string out, err;
    EXPECT_EQ(tx::run_tx_command(run_command(ex), out, err), 0) << out << err;
    EXPECT_NE(out.find("compared with the lowered program"), std::string::npos) << out;
    EXPECT_NE(out.find("\nmatch ("), std::string::npos) << out;
    EXPECT_EQ(err, "");
  }
}

TEST(TxCpuCompare, EveryMappingOfEveryKernelIsCompared) {
  std::string out, err;
  ASSERT_EQ(tx::run_tx_command(run_command("mlp"), out, err), 0) << err;
  // Two kernels, each with a default and eight when(fastest) alternatives (four smaller tiles, four
  // split-K candidates): 1 + 8 + 8 chains.
  EXPECT_NE(out.find("compared with the lowered programs mlp_H, mlp_Y"), std::string::npos) << out;
  EXPECT_NE(out.find("match (17 mapping chains on the CPU executor)"), std::string::npos) << out;
}

TEST(TxCpuCompare, SplitKMappingsMatchAtALongK) {
  // K = 700 is 11 K steps of 64 (6 of 128): shares of unequal length for S = 2 and 4, a clipped last
  // step; M and N are not tile multiples. The split candidates run like the others (the executor
  // runs a split loop's iterations in order: docs/mapping.md, "Split-K").
  for (const auto& [ex, sizes] : std::vector<std::pair<std::string, std::string>>{
           {"gemm", "M=67,N=45,K=700"}, {"batched_gemm", "L=3,M=67,N=45,K=700"}, {"gemm_bias_relu", "M=67,N=45,K=700"}}) {
    SCOPED_TRACE(ex);
    std::string out, err;
    EXPECT_EQ(tx::run_tx_command(run_command(ex, sizes), out, err), 0) << out << err;
    // The default, four smaller tiles and four split-K candidates.
    EXPECT_NE(out.find("match (9 mapping chains on the CPU executor)"), std::string::npos) << out;
    const tx::TxCommand c = run_command(ex, sizes);
    std::vector<std::pair<std::string, std::string>> progs;
    std::vector<tx::SimtArtifact> simt;
    ASSERT_EQ(tx::lower_tx_file(c.path, c.text, progs, simt, err), 0) << err;
    ASSERT_EQ(progs.size(), 1u);
    EXPECT_NE(progs[0].second.find("splitk(2)"), std::string::npos);
    EXPECT_NE(progs[0].second.find("splitk(4)"), std::string::npos);
  }
}

TEST(TxCpuCompare, SizesNotGivenGetNonTileDefaults) {
  std::string out, err;
  ASSERT_EQ(tx::run_tx_command(run_command("batched_gemm", ""), out, err), 0) << err;
  EXPECT_NE(out.find("(seed 7; K=45 L=3 M=67 N=37; default: L M K N)"), std::string::npos) << out;
  EXPECT_NE(out.find("C: bf16[3, 67, 37] max |lowered - interpreted|"), std::string::npos) << out;
}

TEST(TxCpuCompare, ToleranceAccountsForRoundingAndAZeroToleranceDoesNot) {
  // mlp rounds its hidden activations to bf16 and its gelu forms differ: the outputs are close, not equal.
  std::string out, err;
  ASSERT_EQ(tx::run_tx_command(run_command("mlp"), out, err), 0) << err;
  EXPECT_EQ(out.find("max |lowered - interpreted| 0:"), std::string::npos) << out;
  tx::TxCommand exact = run_command("mlp");
  exact.tolerance = 0;
  out.clear();
  err.clear();
  EXPECT_EQ(tx::run_tx_command(exact, out, err), 1);
  EXPECT_NE(out.find("MISMATCH at Y["), std::string::npos) << out;
  EXPECT_NE(err.find("examples/tx/mlp.tx:25:7: error: the lowered program disagrees with the interpreter on 'Y': at ["),
            std::string::npos)
      << err;
}

TEST(TxCpuCompare, StatementsOutsideEveryKernelCannotBeCompared) {
  std::string out, err;
  EXPECT_EQ(tx::run_tx_command(run_command("softmax"), out, err), 1);
  EXPECT_NE(err.find("examples/tx/softmax.tx:8:3: error: cannot compare this statement with a lowered program: it is "
                     "not part of a tensor-core kernel"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("hint: `loom run --cpu --interpret-only` only interprets the file"), std::string::npos) << err;
  tx::TxCommand only = run_command("softmax");
  only.interpret_only = true;
  out.clear();
  err.clear();
  EXPECT_EQ(tx::run_tx_command(only, out, err), 0) << err;
  EXPECT_NE(out.find("Y: bf16[67, 45] sum="), std::string::npos) << out;
  EXPECT_EQ(out.find("compared with"), std::string::npos) << out;
}

// ---- the comparison on programs edited to be wrong ------------------------------------------------

struct Lowered {
  std::unique_ptr<TxCompiled> c;
  std::vector<tx::LoweredProgram> programs;
};

Lowered lower_example(const std::string& example) {
  Lowered l;
  l.c = compile_tx(read_file(source_dir() + "/examples/tx/" + example + ".tx"), example + ".tx");
  EXPECT_TRUE(l.c->model && !l.c->diag->has_errors()) << l.c->errors();
  if (!l.c->model) return l;
  tx::Recognition r = tx::recognize_contractions(*l.c->model, example, example + ".tx");
  for (const tx::ContractionKernel& k : r.kernels)
    l.programs.push_back({k.name, SourceLoc{1, uint32_t(k.loc.line), uint32_t(k.loc.col)}, tx::lower_to_loom(k)});
  return l;
}

// `text` with `from` replaced by `to` (which must occur).
void edit(std::string& text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << "no '" << from << "' in\n" << text;
  text.replace(at, from.size(), to);
}

tx::Comparison compare(const Lowered& l, const std::map<std::string, int64_t>& sizes, uint64_t seed = 3) {
  std::map<std::string, tx::Array> in = tx::random_inputs(*l.c->model, sizes, seed);
  std::map<std::string, tx::Array> want = tx::interpret_tx(*l.c->model, sizes, in);
  tx::CompareOptions o;
  o.seed = seed;
  return tx::compare_lowered(*l.c->model, l.programs, sizes, in, want, o);
}

// The unedited program matches, the edited one does not (and says where).
void expect_caught(Lowered& l, const std::map<std::string, int64_t>& sizes, const std::string& from, const std::string& to,
                   size_t program = 0) {
  tx::Comparison good = compare(l, sizes);
  EXPECT_TRUE(good.ok()) << good.format();
  edit(l.programs.at(program).text, from, to);
  tx::Comparison bad = compare(l, sizes);
  EXPECT_FALSE(bad.ok()) << "the edit '" << from << "' -> '" << to << "' went unnoticed:\n" << bad.format();
  EXPECT_NE(bad.format().find(": MISMATCH at "), std::string::npos) << bad.format();
}

TEST(TxCpuCompareCatches, ADroppedBias) {
  Lowered l = lower_example("gemm_bias_relu");
  expect_caught(l, {{"M", 67}, {"N", 45}, {"K", 37}}, "  add(X, X, b);\n  relu(D, X);", "  relu(D, X);");
}

TEST(TxCpuCompareCatches, ADroppedEdgeKStep) {  // K = 150: steps of 64, 64 and a clipped 22
  Lowered l = lower_example("gemm");
  expect_caught(l, {{"M", 67}, {"N", 45}, {"K", 150}}, "srange k in cdiv(K, W) {", "srange k in cdiv(K, W) - 1 {");
}

TEST(TxCpuCompareCatches, ATransposedOperandReadAsRowMajor) {  // N == K, so the shapes still fit
  Lowered l = lower_example("batched_gemm");
  expect_caught(l, {{"L", 2}, {"M", 33}, {"N", 40}, {"K", 40}}, " layout(B: col_major) entry;", " entry;");
}

TEST(TxCpuCompareCatches, ADroppedPrologue) {
  Lowered l = lower_example("relu_gemm");
  expect_caught(l, {{"M", 67}, {"N", 45}, {"K", 37}}, "  relu(R, S);", "  convert(R, S);");
}

TEST(TxCpuCompareCatches, AWrongActivationInTheFirstOfTwoKernels) {
  Lowered l = lower_example("mlp");
  ASSERT_EQ(l.programs.size(), 2u);
  expect_caught(l, {{"T", 13}, {"D", 21}, {"F", 29}}, "  gelu(D, X);", "  silu(D, X);", 0);
}

TEST(TxCpuCompareCatches, ASecondTermLeftOut) {
  Lowered l = lower_example("add_gemm");
  ASSERT_EQ(l.programs.size(), 1u);
  // The second K loop (over K2) accumulates X * Y; run it zero times.
  expect_caught(l, {{"M", 67}, {"N", 45}, {"K", 37}, {"K2", 19}}, "in cdiv(K2, W)", "in cdiv(K2, W) - cdiv(K2, W)");
}

TEST(TxCpuCompare, AnOutputNoProgramWritesIsALocatedError) {
  Lowered l = lower_example("gemm");
  l.programs.clear();
  try {
    compare(l, {{"M", 5}, {"N", 6}, {"K", 7}});
    ADD_FAILURE() << "no error";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.diagnostic.loc.line, 5u);
    EXPECT_EQ(e.diagnostic.message, "cannot compare 'C': no lowered program writes it");
  }
}

TEST(TxCpuCompareCatches, AnAccumulatorClearedToTheWrongValue) {
  Lowered l = lower_example("gemm");
  expect_caught(l, {{"M", 20}, {"N", 30}, {"K", 40}}, "  fill(C, 0);", "  fill(C, 0.25);");
}

TEST(TxCpuCompare, AProgramThatFailsOnTheExecutorIsALocatedError) {
  Lowered l = lower_example("gemm");
  // An extern leaf body has no CPU implementation.
  edit(l.programs[0].text, "variant epilogue_thread of epilogue(D, X): leaf on(THREAD) {\n  convert(D, X);\n}",
       "variant epilogue_thread of epilogue(D, X): leaf on(THREAD) extern %{ D = X; %}");
  try {
    compare(l, {{"M", 5}, {"N", 6}, {"K", 7}});
    ADD_FAILURE() << "no error";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.diagnostic.loc.line, 9u);
    EXPECT_EQ(e.diagnostic.message.rfind("the lowered program of kernel `gemm` (the default mapping) failed on the CPU executor (seed 3): ", 0), 0u)
        << e.diagnostic.message;
  }
}

}  // namespace
}  // namespace loom::test
