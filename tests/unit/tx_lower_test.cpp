// Tests of the contraction lowering (src/tx/lower.h, src/tx/tile_model.h; docs/tensor-expressions.md,
// "Lowering to task programs"). Each kernel is built by hand as a ContractionKernel; its lowered
// `.loom` text must
//   - parse and check with the existing front end, and be in canonical form (`loom fmt`),
//   - run through the middle end for every mapping (default and specialization), and on the CPU
//     (the sequential reference interpreter and the event-IR executor, as `loom run --cpu`) give
//     the values of an independent reference computed here from the struct's meaning, at shapes
//     that are not tile multiples (M = 70, N = 40, K = 50),
//   - give CUDA from the back end where the back end supports the kernel, and a located user
//     error (never an internal one) where it does not.
// Goldens of the generated text: tests/golden/tx/*.loom (UPDATE_GOLDEN=1 regenerates them).
#include "tx/lower.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "codegen/cuda.h"
#include "exec/executor.h"
#include "exec/inputs.h"
#include "exec/reference.h"
#include "loom/frontend.h"
#include "passes/pipeline.h"
#include "test_util.h"
#include "tx/tile_model.h"

namespace loom::tx {
namespace {

using test::check_text;
using test::expect_golden;

TxOperand op(const std::string& name, DType t = DType::BF16, bool transposed = false,
             Pointwise pro = Pointwise::Identity) {
  TxOperand o;
  o.name = name;
  o.dtype = t;
  o.transposed = transposed;
  o.prologue = pro;
  return o;
}

TxTerm term(TxOperand a, TxOperand b, const std::string& k = "K") {
  TxTerm t;
  t.a = std::move(a);
  t.b = std::move(b);
  t.k = k;
  return t;
}

// C[M, N] = sum_K A[M, K] * B[K, N], bf16; the cases below change one part at a time.
ContractionKernel gemm_kernel(const std::string& name = "gemm") {
  ContractionKernel k;
  k.name = name;
  k.loc = {"t.tx", 3, 5, 0};
  k.m = "M";
  k.n = "N";
  k.terms.push_back(term(op("A"), op("B")));
  k.out = op("C");
  return k;
}

// ---- the independent reference ----------------------------------------------------------------------

double apply(Pointwise f, double x) {
  switch (f) {
    case Pointwise::Identity: return x;
    case Pointwise::Relu: return x > 0 ? x : 0;
    case Pointwise::Gelu: return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    case Pointwise::Silu: return x / (1 + std::exp(-x));
    case Pointwise::Sigmoid: return 1 / (1 + std::exp(-x));
    case Pointwise::Exp: return std::exp(x);
    case Pointwise::Neg: return -x;
  }
  return x;
}

double round_to(DType t, double x) {
  exec::View v(exec::make_buffer(t, {1}, "r"));
  v.store({0}, x);
  return v.load({0});
}

const exec::View& tensor(const exec::Args& a, const std::string& name) {
  const exec::Arg* x = a.find(name);
  EXPECT_NE(x, nullptr) << name;
  return x->view;
}

// out[b, i, j] = act(sum_t sum_k pro_a(A[b, i, k]) * pro_b(B[b, k, j]) + bias[j] + R[b, i, j]),
// in double, with the prologues' results rounded to the operand type (they are stored as such).
// Operands are read in their logical order (a transposed operand is the same logical matrix, stored
// column-major). Returns the first element that differs by more than the output type's rounding.
std::string compare_with_meaning(const ContractionKernel& k, const exec::Args& in, const exec::Args& got,
                                 const std::map<std::string, int64_t>& sizes) {
  std::vector<int64_t> bext;
  for (const std::string& b : k.batch) bext.push_back(sizes.at(b));
  const int64_t M = sizes.at(k.m), N = sizes.at(k.n);
  int64_t nb = 1;
  for (int64_t e : bext) nb *= e;
  const double rel = k.out.dtype == DType::BF16 ? 1.0 / 128 : k.out.dtype == DType::F16 ? 1.0 / 1024 : 1e-5;
  const exec::View& out = tensor(got, k.out.name);
  for (int64_t flat = 0; flat < nb; ++flat) {
    std::vector<int64_t> bi;
    for (size_t d = 0, r = size_t(flat); d < bext.size(); ++d) {
      int64_t stride = 1;
      for (size_t e = d + 1; e < bext.size(); ++e) stride *= bext[e];
      bi.push_back(int64_t(r) / stride);
      r %= size_t(stride);
    }
    auto at = [&](int64_t i, int64_t j) {
      std::vector<int64_t> c = bi;
      c.push_back(i);
      c.push_back(j);
      return c;
    };
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0;
        for (const TxTerm& t : k.terms) {
          const exec::View &A = tensor(in, t.a.name), &B = tensor(in, t.b.name);
          for (int64_t kk = 0; kk < sizes.at(t.k); ++kk)
            s += round_to(t.a.dtype, apply(t.a.prologue, A.load(at(i, kk)))) *
                 round_to(t.b.dtype, apply(t.b.prologue, B.load(at(kk, j))));
        }
        s = round_to(DType::F32, s);
        if (k.bias) s += tensor(in, k.bias->name).load({j});
        if (k.residual) s += tensor(in, k.residual->name).load(at(i, j));
        const double want = apply(k.activation, s), have = out.load(at(i, j));
        if (!(std::fabs(want - have) <= 1e-3 + rel * std::fabs(want))) {
          std::string where = k.out.name + "[";
          for (int64_t b : bi) where += std::to_string(b) + ", ";
          return where + std::to_string(i) + ", " + std::to_string(j) + "]: expected " + std::to_string(want) +
                 ", got " + std::to_string(have);
        }
      }
  }
  return "";
}

// ---- the pipeline -----------------------------------------------------------------------------------

struct Outcome {
  std::string text;
  bool cuda = false;                 // the back end generated the kernel
  std::optional<Diagnostic> refused; // or refused it with this user error
};

// Lowers `k`, checks the text, runs every mapping on the CPU against the meaning (seeds 1 and 2),
// and runs the back end.
Outcome run_kernel(const ContractionKernel& k, const std::map<std::string, int64_t>& all_sizes) {
  Outcome r;
  std::map<std::string, int64_t> sizes;  // the kernel's dimensions only
  for (const std::string& d : k.batch) sizes[d] = all_sizes.at(d);
  for (const std::string& d : {k.m, k.n}) sizes[d] = all_sizes.at(d);
  for (const TxTerm& t : k.terms) sizes[t.k] = all_sizes.at(t.k);
  r.text = lower_to_loom(k);
  auto c = check_text(r.text, k.name + ".loom");
  EXPECT_TRUE(c.ok) << c.diagnostics << "\n" << r.text;
  if (!c.ok || !c.tree) return r;
  EXPECT_EQ(format_program(c.program), r.text) << "the lowered text is not in canonical form";
  std::vector<MappingUnit> units = mapping_units(c.program, *c.tree);
  std::vector<ir::Function> fs;
  for (const MappingUnit& u : units) fs.push_back(lower_to_event_ir(u.program, u.tree));
  for (uint64_t seed : {1, 2}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    exec::Args in = exec::make_inputs(c.program, *c.tree, sizes, seed);
    exec::Args ref = exec::copy_args(in);
    exec::run_reference(c.program, *c.tree, ref);
    EXPECT_EQ(compare_with_meaning(k, in, ref, sizes), "") << "the reference interpreter on the lowered program";
    for (size_t m = 0; m < fs.size(); ++m) {
      SCOPED_TRACE("mapping " + std::to_string(m));
      exec::Args got = exec::copy_args(in);
      exec::ExecOptions eo;
      eo.detect_races = true;
      exec::ExecResult er = exec::execute(fs[m], exec::exec_args(got), seed, eo);
      EXPECT_TRUE(er.ok) << er.error;
      if (er.ok) {
        EXPECT_EQ(compare_with_meaning(k, in, got, sizes), "") << "the compiled program on the CPU";
      }
    }
  }
  try {
    std::vector<codegen::MappingKernel> kernels;
    for (size_t i = 0; i < units.size(); ++i)
      kernels.push_back({&fs[i], units[i].when ? format_condition(*units[i].when) : ""});
    codegen::CudaArtifact a = codegen::generate_cuda(kernels, k.name + ".loom");
    r.cuda = a.cu.find("loom_" + k.name) != std::string::npos;
  } catch (const CompileError& e) {
    r.refused = e.diagnostic;
    EXPECT_TRUE(e.diagnostic.loc.valid()) << e.diagnostic.message;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the back end failed with an internal error: " << e.what();
  }
  return r;
}

const std::map<std::string, int64_t> kShape = {{"M", 70}, {"N", 40}, {"K", 50}, {"L", 30}, {"Bt", 3}, {"H", 2}};

void expect_cuda(const Outcome& o) {
  EXPECT_TRUE(o.cuda) << (o.refused ? "refused: " + o.refused->message : std::string("no kernel")) << "\n" << o.text;
}

// ---- the kernels --------------------------------------------------------------------------------------

TEST(TxLower, PlainGemm) {
  Outcome o = run_kernel(gemm_kernel(), kShape);
  expect_cuda(o);
  expect_golden("tx/gemm.loom", o.text);
}

TEST(TxLower, TransposedB) {
  ContractionKernel k = gemm_kernel("gemm_bt");
  k.terms[0].b.transposed = true;
  Outcome o = run_kernel(k, kShape);
  EXPECT_NE(o.text.find("layout(B: col_major) entry"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("B: col_major swizzle128"), std::string::npos) << o.text;
  expect_cuda(o);
}

TEST(TxLower, BatchedGemm) {
  ContractionKernel k = gemm_kernel("bgemm");
  k.batch = {"Bt"};
  Outcome o = run_kernel(k, kShape);
  expect_cuda(o);
  expect_golden("tx/bgemm.loom", o.text);
}

TEST(TxLower, ReluPrologueOnA) {
  ContractionKernel k = gemm_kernel("relu_gemm");
  k.terms[0].a.prologue = Pointwise::Relu;
  Outcome o = run_kernel(k, kShape);
  expect_golden("tx/relu_gemm.loom", o.text);
  // The back end lowers the prologue (docs/codegen.md, "Shared inputs").
  expect_cuda(o);
}

TEST(TxLower, BiasRelu) {
  ContractionKernel k = gemm_kernel("gemm_bias_relu");
  k.bias = op("bias");
  k.activation = Pointwise::Relu;
  expect_cuda(run_kernel(k, kShape));
}

TEST(TxLower, BiasGelu) {
  ContractionKernel k = gemm_kernel("gemm_bias_gelu");
  k.bias = op("bias");
  k.activation = Pointwise::Gelu;
  Outcome o = run_kernel(k, kShape);
  expect_cuda(o);
  expect_golden("tx/gemm_bias_gelu.loom", o.text);
}

TEST(TxLower, Silu) {
  ContractionKernel k = gemm_kernel("gemm_silu");
  k.activation = Pointwise::Silu;
  expect_cuda(run_kernel(k, kShape));
}

TEST(TxLower, Residual) {
  ContractionKernel k = gemm_kernel("gemm_residual");
  k.out = op("D");
  k.residual = op("C");
  Outcome o = run_kernel(k, kShape);
  expect_cuda(o);
  expect_golden("tx/gemm_residual.loom", o.text);
}

TEST(TxLower, AddGemmTwoTerms) {
  ContractionKernel k = gemm_kernel("add_gemm");
  k.out = op("E");
  k.terms.push_back(term(op("C"), op("D"), "L"));
  Outcome o = run_kernel(k, kShape);
  expect_cuda(o);
  expect_golden("tx/add_gemm.loom", o.text);
}

TEST(TxLower, F16Output) {
  ContractionKernel k = gemm_kernel("gemm_f16");
  k.terms[0] = term(op("A", DType::F16), op("B", DType::F16));
  k.out = op("C", DType::F16);
  expect_cuda(run_kernel(k, kShape));
}

TEST(TxLower, F32OutputRunsOnTheCpu) {
  ContractionKernel k = gemm_kernel("gemm_f32");
  k.out = op("C", DType::F32);
  Outcome o = run_kernel(k, kShape);
  // The back end stores only 16-bit outputs today.
  EXPECT_FALSE(o.cuda);
  ASSERT_TRUE(o.refused);
}

}  // namespace
}  // namespace loom::tx

namespace loom::tx {
namespace {

// ---- more of the struct: transposed A, a prologue on B, two batch levels, in place, names ----------------

TEST(TxLower, TransposedARunsOnTheCpu) {
  ContractionKernel k = gemm_kernel("gemm_at");
  k.terms[0].a.transposed = true;
  Outcome o = run_kernel(k, kShape);
  EXPECT_NE(o.text.find("layout(A: col_major) entry"), std::string::npos) << o.text;
  // The back end refuses column-major A tiles (docs/codegen.md); the CPU path above ran.
  EXPECT_FALSE(o.cuda);
  ASSERT_TRUE(o.refused);
}

TEST(TxLower, PrologueOnBAndNegRunOnTheCpu) {
  ContractionKernel k = gemm_kernel("gemm_pro_b");
  k.terms[0].b.prologue = Pointwise::Sigmoid;
  k.terms[0].a.prologue = Pointwise::Neg;
  k.activation = Pointwise::Exp;
  Outcome o = run_kernel(k, kShape);
  EXPECT_NE(o.text.find("sigmoid(R, S);"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("scale(R, S, -1);"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("RB = tensor(bf16, [rows(Bk), N]);"), std::string::npos) << o.text;
  EXPECT_FALSE(o.cuda);
}

TEST(TxLower, TwoBatchDimensionsWithBiasAndResidual) {
  ContractionKernel k = gemm_kernel("mlp_out");
  k.batch = {"Bt", "H"};
  k.bias = op("bias");
  k.residual = op("X");
  k.out = op("Y");
  k.activation = Pointwise::Silu;
  Outcome o = run_kernel(k, kShape);
  EXPECT_NE(o.text.find("task mlp_out_b1(Y: w bf16[H, M, N]"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("mapping sm_90a when(fastest) {"), std::string::npos) << o.text;  // the launcher weighs the tiles per call
  expect_cuda(o);
}

TEST(TxLower, ResidualInPlace) {  // C = A * B + C: the output is read and written
  ContractionKernel k = gemm_kernel("gemm_acc");
  k.residual = op("C");
  Outcome o = run_kernel(k, kShape);
  EXPECT_NE(o.text.find("task gemm_acc(C: rw bf16[M, N], A: r bf16[M, K], B: r bf16[K, N]);"), std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("epilogue(C, Acc, C);"), std::string::npos) << o.text;
}

TEST(TxLower, TermsWithDifferentLayoutsGetTheirOwnStaging) {
  ContractionKernel k = gemm_kernel("add_gemm_bt");
  k.out = op("E");
  k.terms.push_back(term(op("C"), op("D", DType::BF16, true), "L"));
  Outcome o = run_kernel(k, kShape);
  EXPECT_NE(o.text.find("first: gemm(Acc, Ap[0, k], Bp[k, 0]);"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("second: gemm(Acc, Cp[0, l], Dp[l, 0]);"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("B: col_major swizzle128"), std::string::npos) << o.text;
}

TEST(TxLower, UserNamesNeverCollideWithTheLowering) {
  // Tensors named like the lowering's tunables, locals and helper tasks.
  ContractionKernel k = gemm_kernel("clear");
  k.terms[0] = term(op("W"), op("Acc"), "U");
  k.out = op("gemm");
  k.bias = op("V");
  k.residual = op("epilogue");
  k.m = "Ap";
  k.n = "i";
  Outcome o = run_kernel(k, {{"Ap", 70}, {"i", 40}, {"U", 50}});
  EXPECT_NE(o.text.find("task clear(gemm: w bf16[Ap, i], W: r bf16[Ap, U]"), std::string::npos) << o.text;
}

TEST(TxLower, UserTileSizesOverrideTheModel) {
  ContractionKernel k = gemm_kernel("gemm_user");
  k.u = 128;
  k.v = 64;
  k.w = 64;
  Outcome o = run_kernel(k, kShape);
  EXPECT_NE(o.text.find("tune(U=128, V=64)"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("tune(W=64)"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("when("), std::string::npos) << "no small-problem mapping for a user tile\n" << o.text;
  expect_cuda(o);
}

TEST(TxLower, TextIsStable) {  // the same kernel lowers to the same text
  ContractionKernel k = gemm_kernel();
  k.bias = op("bias");
  EXPECT_EQ(lower_to_loom(k), lower_to_loom(k));
}

// ---- errors: located at the kernel's statement, with the reason ---------------------------------------

std::string lowering_error(const ContractionKernel& k) {
  try {
    lower_to_loom(k);
  } catch (const CompileError& e) {
    EXPECT_EQ(e.diagnostic.loc.line, 3u);
    EXPECT_EQ(e.diagnostic.loc.col, 5u);
    return e.diagnostic.message;
  }
  ADD_FAILURE() << "no error for " << describe(k);
  return "";
}

TEST(TxLowerErrors, F32OperandsAreNotTensorCoreInputs) {
  ContractionKernel k = gemm_kernel();
  k.terms[0] = term(op("A", DType::F32), op("B", DType::F32));
  EXPECT_EQ(lowering_error(k), "contraction `gemm`: operand `A` is f32; the tensor cores multiply f16 or bf16");
}

TEST(TxLowerErrors, OperandsOfOneProductHaveOneType) {
  ContractionKernel k = gemm_kernel();
  k.terms[0].b.dtype = DType::F16;
  EXPECT_EQ(lowering_error(k),
            "contraction `gemm`: the operands `A` (bf16) and `B` (f16) of one product have different types");
}

TEST(TxLowerErrors, AtMostTwoTerms) {
  ContractionKernel k = gemm_kernel();
  k.terms.push_back(term(op("C"), op("D"), "L"));
  k.terms.push_back(term(op("E"), op("F"), "J"));
  k.out = op("Y");
  EXPECT_EQ(lowering_error(k),
            "contraction `gemm`: the lowering takes one or two contractions into one accumulator, not 3");
}

TEST(TxLowerErrors, TensorInTwoRoles) {
  ContractionKernel k = gemm_kernel();
  k.terms[0].b.name = "A";  // A[i, k] * A[k, j]
  EXPECT_EQ(lowering_error(k),
            "contraction `gemm`: tensor `A` is used in two different roles (or index orders, or types)");
}

TEST(TxLowerErrors, TensorNamedLikeADimension) {
  ContractionKernel k = gemm_kernel();
  k.terms[0].a.name = "K";
  EXPECT_EQ(lowering_error(k), "contraction `gemm`: tensor `K` is named like a dimension");
}

TEST(TxLowerErrors, UserTileTheBackEndCannotRun) {
  ContractionKernel k = gemm_kernel();
  k.v = 100;
  EXPECT_EQ(lowering_error(k), "contraction `gemm`: a block tile of 100 columns is not one the back end runs");
  k.v = 224;  // whole 32-column groups: B's rows padded to four 64-column slices (ir::padded_row)
  EXPECT_NO_THROW(lower_to_loom(k));
  k.v = 256;
  k.w = 32;
  EXPECT_EQ(lowering_error(k), "contraction `gemm`: a K step of 32 is not one the back end runs");
}

TEST(TxLowerErrors, UserTileThatDoesNotFit) {
  ContractionKernel k = gemm_kernel();
  k.residual = op("R");
  k.out = op("D");
  k.u = 256;
  k.v = 256;
  const std::string m = lowering_error(k);
  EXPECT_NE(m.find("the tile 256 x 256 x 64 does not fit: a consumer thread would hold"), std::string::npos) << m;
}

// ---- the tile model ----------------------------------------------------------------------------------

TEST(TxTileModel, PlainGemmTakesTheLargestTileAndOffersSmallerOnes) {
  TileChoice c = choose_tiles(gemm_kernel(), hopper_machine());
  EXPECT_EQ(c.main.u, 128);
  EXPECT_EQ(c.main.v, 256);
  EXPECT_EQ(c.main.w, 64);
  EXPECT_EQ(c.main.stages, 3);  // 3 x 48 KB + the 64 KB output staging tile; 4 stages do not fit
  // The launcher's cost model chooses per call among the default, one tile per smaller shape and
  // the split-K candidates (TxSplitK below).
  std::vector<TileConfig> unsplit;
  for (const TileConfig& a : c.alternatives)
    if (a.split == 1) unsplit.push_back(a);
  // 128 x 128 and 128 x 64 on two consumer warpgroups, 64 x 128 and 64 x 64 on one (with deeper
  // rings: 4 and 6 stages of 128-deep K steps, examples/gemm's 64 x 64 candidate).
  ASSERT_EQ(unsplit.size(), 4u) << c.why;
  for (const TileConfig& a : unsplit) EXPECT_LT(a.u * a.v, 128 * 256);
  EXPECT_TRUE(unsplit[0].u == 128 && unsplit[1].u == 128 && unsplit[0].v != unsplit[1].v) << c.why;
  EXPECT_TRUE(unsplit[2].u == 64 && unsplit[2].v == 128 && unsplit[2].g == 1) << c.why;
  EXPECT_TRUE(unsplit[3].u == 64 && unsplit[3].v == 64 && unsplit[3].w == 128 && unsplit[3].stages == 6) << c.why;
}

TEST(TxTileModel, ResidualInRegistersRulesOutTheWidestTile) {
  ContractionKernel k = gemm_kernel();
  k.residual = op("R");
  k.out = op("D");
  TileConfig wide{128, 256, 64, 2};
  auto why = fit_tile(k, hopper_machine(), wide);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("registers"), std::string::npos) << *why;
  TileChoice c = choose_tiles(k, hopper_machine());
  EXPECT_EQ(c.main.v, 128);
  EXPECT_TRUE(c.main.residual_shared);
  EXPECT_EQ(c.main.stages, 4);
}

TEST(TxTileModel, EstimateGrowsWithWavesAndDepth) {
  const ContractionKernel k = gemm_kernel();
  TileConfig c{128, 256, 64, 2};
  ASSERT_FALSE(fit_tile(k, hopper_machine(), c));
  const Machine& m = hopper_machine();
  const double one_wave = estimate_cycles(k, m, c, 128 * 12, 256 * 11, 4096);  // 132 tiles
  EXPECT_DOUBLE_EQ(estimate_cycles(k, m, c, 128 * 12 + 1, 256 * 11, 4096), 2 * one_wave);
  EXPECT_LT(one_wave, estimate_cycles(k, m, c, 128 * 12, 256 * 11, 8192));
  // A shallower ring waits on load latency.
  TileConfig shallow = c;
  shallow.stages = 2;
  EXPECT_GT(estimate_cycles(k, m, shallow, 4096, 4096, 4096), estimate_cycles(k, m, c, 4096, 4096, 4096));
}

// ---- split-K: when(fastest) candidates that split the K loop over a cluster ----------------------------

// The lowered text with its comments' line breaks undone, to find a sentence.
std::string flat(std::string text) {
  for (size_t at; (at = text.find("\n// ")) != std::string::npos;) text.replace(at, 4, " ");
  return text;
}

std::vector<TileConfig> splits_of(const TileChoice& c) {
  std::vector<TileConfig> s;
  for (const TileConfig& a : c.alternatives)
    if (a.split > 1) s.push_back(a);
  return s;
}

// examples/gemm's split candidates, measured on an H100 (bench/results/2026-11-25-h100-gemm-splitk.md)
// and an H200 (2026-11-28-h200-gemm-clocks-tiles.md): 128 x 128 tiles, 64-deep K steps, 4 stages with
// S = 2 and S = 4; 128 x 64 tiles, 128-deep K steps, 3 stages with S = 4; 64 x 64 tiles, 128-deep K
// steps with S = 4 (6 stages here, 4 in examples/gemm). The model finds the same four (and drops
// 128 x 64 with S = 2, which 128 x 128 with S = 4 beats on every probe problem, and the 64-row tiles'
// other splits).
void expect_examples_gemm_splits(const TileChoice& c) {
  const std::vector<TileConfig> s = splits_of(c);
  ASSERT_EQ(s.size(), 4u) << c.why;
  auto is = [](const TileConfig& t, int v, int w, int stages, int split) {
    return t.u == 128 && t.v == v && t.w == w && t.stages == stages && t.split == split && !t.residual_shared;
  };
  EXPECT_TRUE(is(s[0], 128, 64, 4, 2)) << c.why;
  EXPECT_TRUE(is(s[1], 128, 64, 4, 4)) << c.why;
  EXPECT_TRUE(is(s[2], 64, 128, 3, 4)) << c.why;
  EXPECT_TRUE(s[3].u == 64 && s[3].v == 64 && s[3].w == 128 && s[3].g == 1 && s[3].split == 4) << c.why;
}

TEST(TxSplitK, PlainGemmGetsExamplesGemmsSplitCandidates) {
  const TileChoice c = choose_tiles(gemm_kernel(), hopper_machine());
  expect_examples_gemm_splits(c);
  EXPECT_EQ(c.main.split, 1);  // the default never splits
  const std::string text = lower_to_loom(gemm_kernel());
  EXPECT_NE(text.find("pipeline(4) splitk(2) smem(227KB);"), std::string::npos) << text;
  EXPECT_NE(text.find("pipeline(4) splitk(4) smem(227KB);"), std::string::npos) << text;
  EXPECT_NE(text.find("pipeline(3) splitk(4) smem(227KB);"), std::string::npos) << text;
  EXPECT_NE(flat(text).find("split-K: the K loop over K is a plain sum"), std::string::npos) << text;
}

TEST(TxSplitK, BatchedGemmGetsThemToo) {
  ContractionKernel k = gemm_kernel("bgemm");
  k.batch = {"Bt"};
  k.terms[0].b.transposed = true;
  expect_examples_gemm_splits(choose_tiles(k, hopper_machine()));
}

TEST(TxSplitK, SplitWinsOnlyWhereFewTilesMeetALongK) {
  const ContractionKernel k = gemm_kernel();
  const Machine& m = hopper_machine();
  const TileChoice c = choose_tiles(k, m);
  auto best = [&](int64_t r, int64_t cl, int64_t d) {
    TileConfig b = c.main;
    for (const TileConfig& a : c.alternatives)
      if (estimate_cycles(k, m, a, r, cl, d) < estimate_cycles(k, m, b, r, cl, d)) b = a;
    return b;
  };
  EXPECT_GT(best(128, 256, 8192).split, 1);   // 2 tiles of 128 x 128 for 132 SMs, 128 K steps each
  EXPECT_GT(best(100, 200, 6000).split, 1);     // one matrix of a 3 x 100 x 200 x 6000 batch
  EXPECT_EQ(best(8192, 8192, 8192).split, 1);  // many waves: the split's exchange is pure overhead
  EXPECT_EQ(best(4096, 4096, 512).split, 1);
  // The estimate of a split tile: floor(SMS / S) clusters at once, a share of the K steps each, and
  // the owner reads one partial sum per level of the split's tree (two for S = 4).
  TileConfig s4 = splits_of(c)[1];
  TileConfig s1 = s4;
  s1.split = 1;
  const double exchange = 2.0 * 1 * 64 * 128 * 4 / double(m.cost.dsmem_bytes_per_cycle) + double(m.cost.cluster_tile_cycles);
  EXPECT_DOUBLE_EQ(estimate_cycles(k, m, s4, 128, 128, 64 * 64), estimate_cycles(k, m, s1, 128, 128, 64 * 16) + exchange);
}

TEST(TxSplitK, NonlinearEpilogueRunsOnceOnTheFullSum) {
  // relu(A B + bias) is split: the owner of the rows adds the partial sums, then runs the epilogue.
  ContractionKernel k = gemm_kernel("gemm_bias_relu");
  k.bias = op("bias");
  k.activation = Pointwise::Relu;
  const TileChoice c = choose_tiles(k, hopper_machine());
  EXPECT_EQ(splits_of(c).size(), 4u) << c.why;
  const std::string text = lower_to_loom(k);
  EXPECT_NE(flat(text).find("then computes the epilogue, relu(sum + bias), once on the full sum"), std::string::npos)
      << text;
  // Long K, shares of unequal length (K = 700: 11 steps of 64 over 2 or 4 blocks), not tile multiples.
  const Outcome o = run_kernel(k, {{"M", 70}, {"N", 40}, {"K", 700}});
  expect_cuda(o);
}

TEST(TxSplitK, ResidualIsReadFromGlobalInSplitMappings) {
  // A TMA-staged residual would be DMA work after the split loop, which the peers do not run.
  ContractionKernel k = gemm_kernel("gemm_residual");
  k.out = op("D");
  k.residual = op("C");
  const TileChoice c = choose_tiles(k, hopper_machine());
  EXPECT_TRUE(c.main.residual_shared);
  ASSERT_FALSE(splits_of(c).empty()) << c.why;
  for (const TileConfig& s : splits_of(c)) EXPECT_FALSE(s.residual_shared);
  const Outcome o = run_kernel(k, {{"M", 70}, {"N", 40}, {"K", 700}});
  EXPECT_NE(flat(o.text).find("the epilogue, sum + C, once on the full sum (split mappings read C from GLOBAL"),
            std::string::npos)
      << o.text;
  expect_cuda(o);
}

TEST(TxSplitK, LongKBatchedGemmRunsEveryMappingOnTheCpu) {
  ContractionKernel k = gemm_kernel("bgemm");
  k.batch = {"Bt"};
  k.terms[0].b.transposed = true;
  const Outcome o = run_kernel(k, {{"Bt", 2}, {"M", 70}, {"N", 40}, {"K", 580}});
  EXPECT_NE(o.text.find("splitk(4) smem("), std::string::npos) << o.text;
  expect_cuda(o);
}

TEST(TxSplitK, APrologueSplitsWithTheLoop) {
  // relu on each K step's tile of A: each block of a split tile rectifies its own share of the steps.
  ContractionKernel k = gemm_kernel("relu_gemm");
  k.terms[0].a.prologue = Pointwise::Relu;
  EXPECT_EQ(split_k_refusal(k, hopper_machine()), std::nullopt);
  EXPECT_FALSE(splits_of(choose_tiles(k, hopper_machine())).empty());
  const Outcome o = run_kernel(k, {{"M", 70}, {"N", 40}, {"K", 580}});
  EXPECT_NE(o.text.find(") splitk("), std::string::npos) << o.text;  // pipeline(N) splitk(S)
  EXPECT_EQ(flat(o.text).find("no split-K candidates"), std::string::npos) << o.text;
  expect_cuda(o);
}

TEST(TxSplitK, TwoTermsKeepTheirLoopsUnsplit) {
  ContractionKernel k = gemm_kernel("add_gemm");
  k.out = op("E");
  k.terms.push_back(term(op("C"), op("D"), "L"));
  EXPECT_TRUE(splits_of(choose_tiles(k, hopper_machine())).empty());
  const std::string text = lower_to_loom(k);
  EXPECT_EQ(text.find(") splitk("), std::string::npos) << text;  // pipeline(N) splitk(S)
  EXPECT_NE(flat(text).find("no split-K candidates: the kernel has two K loops (K and L) into one accumulator"),
            std::string::npos)
      << text;
}

TEST(TxSplitK, NoClustersNoSplit) {
  EXPECT_EQ(split_k_refusal(gemm_kernel(), ampere_machine()),
            "sm_80 has no thread-block clusters to split a tile's K loop over");
}

TEST(TxSplitK, UserTileHasNoSplitCandidates) {
  ContractionKernel k = gemm_kernel("gemm_user");
  k.u = 128;
  k.v = 128;
  const std::string text = lower_to_loom(k);
  EXPECT_EQ(text.find(") splitk("), std::string::npos) << text;  // pipeline(N) splitk(S)
  EXPECT_NE(flat(text).find("given by the user (no alternatives, no split-K candidates)"), std::string::npos) << text;
}

TEST(TxSplitK, SplitBudgetHoldsThePartialSums) {
  const ContractionKernel k = gemm_kernel();
  TileConfig c{128, 128, 64, 2};
  c.split = 2;
  ASSERT_FALSE(fit_tile(k, hopper_machine(), c));
  // 4 stages of 32 KB, the 32 KB output staging tile, 64 KB of partial sums (2 warpgroups x 64 x 128
  // floats) and the barriers' reserve.
  EXPECT_EQ(c.stages, 4);
  EXPECT_EQ(c.smem_bytes, 4 * 32768 + 32768 + 65536 + 2048);
  TileConfig deep{128, 128, 128, 2};
  deep.split = 2;
  ASSERT_FALSE(fit_tile(k, hopper_machine(), deep));
  EXPECT_EQ(deep.stages, 2);  // 64 KB stages: only two fit next to the partial sums
}

}  // namespace
}  // namespace loom::tx

namespace loom::tx {
namespace {

// ---- property: random kernels (every part of the struct, at random non-tile shapes) ----------------------

TEST(TxLowerProperty, RandomKernelsMatchTheirMeaningOnTheCpu) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " (TxLowerProperty: rerun with this seed)");
    std::mt19937_64 rng(seed);
    auto pick = [&](int n) { return int(rng() % uint64_t(n)); };
    const Pointwise pro[] = {Pointwise::Identity, Pointwise::Identity, Pointwise::Relu, Pointwise::Neg,
                             Pointwise::Sigmoid};
    const Pointwise act[] = {Pointwise::Identity, Pointwise::Relu, Pointwise::Gelu, Pointwise::Silu,
                             Pointwise::Neg};
    ContractionKernel k = gemm_kernel("k" + std::to_string(seed));
    const DType in = pick(2) ? DType::BF16 : DType::F16;
    k.terms.clear();
    const int terms = 1 + pick(2);
    for (int t = 0; t < terms; ++t)
      k.terms.push_back(term(op(t ? "C" : "A", in, pick(4) == 0, pro[pick(5)]),
                             op(t ? "D" : "B", in, pick(3) == 0, pro[pick(5)]), t ? "L" : "K"));
    for (int b = pick(3); b > 0; --b) k.batch.insert(k.batch.begin(), b == 1 ? "Bt" : "H");
    const DType outs[] = {DType::BF16, DType::F16, DType::F32};
    k.out = op("Y", outs[pick(3)]);
    if (pick(2)) k.bias = op("bias", pick(2) ? DType::BF16 : DType::F32);
    if (int r = pick(3)) k.residual = r == 1 ? op("R", in) : op("Y", k.out.dtype);
    k.activation = act[pick(5)];
    std::map<std::string, int64_t> sizes = {{"M", 1 + pick(100)}, {"N", 1 + pick(100)}, {"K", 1 + pick(90)},
                                            {"L", 1 + pick(90)}, {"Bt", 1 + pick(3)}, {"H", 1 + pick(2)}};
    SCOPED_TRACE(describe(k));
    run_kernel(k, sizes);
  }
}

}  // namespace
}  // namespace loom::tx
