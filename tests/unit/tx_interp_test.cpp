// The tensor-expression interpreter (src/tx/interp.h) against results computed by hand on small
// shapes that are not tile multiples: gemm, a transposed batched gemm, relu prologue, bias+relu
// epilogue, add_gemm, softmax, layernorm, transpose; bf16 rounding of outputs and `new` buffers.
#include <cmath>

#include "exec/host_tensor.h"
#include "tx/interp.h"
#include "tx_test_util.h"

namespace loom::test {
namespace {

using Inputs = std::map<std::string, tx::Array>;

std::map<std::string, tx::Array> run_example(const std::string& name, const std::map<std::string, int64_t>& sizes, Inputs& in,
                                             uint64_t seed = 3) {
  static std::vector<std::unique_ptr<TxCompiled>> keep;  // the model points into the program
  keep.push_back(compile_tx(read_file(source_dir() + "/examples/tx/" + name + ".tx"), name + ".tx"));
  const TxCompiled& c = *keep.back();
  EXPECT_FALSE(c.diag->has_errors()) << c.errors();
  in = tx::random_inputs(*c.model, sizes, seed);
  return tx::interpret_tx(*c.model, sizes, in);
}

float at(const tx::Array& a, std::vector<int64_t> idx) {
  size_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) off = off * a.extents[d] + idx[d];
  return a.data[off];
}
float bf16(double v) { return static_cast<float>(exec::round_to(DType::BF16, v)); }

TEST(TxInterp, GemmMatchesHandComputedProduct) {
  const int64_t M = 5, N = 7, K = 3;
  Inputs in;
  auto out = run_example("gemm", {{"M", M}, {"N", N}, {"K", K}}, in);
  const tx::Array& C = out.at("C");
  ASSERT_EQ(C.extents, (std::vector<int64_t>{M, N}));
  EXPECT_EQ(C.dtype, DType::BF16);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float s = 0;
      for (int64_t k = 0; k < K; ++k) s += at(in.at("A"), {i, k}) * at(in.at("B"), {k, j});
      EXPECT_EQ(at(C, {i, j}), bf16(s)) << i << "," << j;  // fp32 sum, rounded once at the end
    }
}

TEST(TxInterp, ExplicitSmallGemm) {
  auto c = compile_tx("in A: f32[M, K];\nin B: f32[K, N];\nout C: f32[M, N];\n"
                      "par M i { par N j { seq K k { C[i, j] += A[i, k] * B[k, j]; } } }\n");
  ASSERT_TRUE(c->model) << c->errors();
  Inputs in;
  in["A"] = {DType::F32, {2, 2}, {1, 2, 3, 4}};
  in["B"] = {DType::F32, {2, 2}, {5, 6, 7, 8}};
  auto out = tx::interpret_tx(*c->model, {{"M", 2}, {"N", 2}, {"K", 2}}, in);
  EXPECT_EQ(out.at("C").data, (std::vector<float>{19, 22, 43, 50}));
}

TEST(TxInterp, BatchedGemmWithTransposedB) {
  Inputs in;
  auto out = run_example("batched_gemm", {{"L", 2}, {"M", 3}, {"N", 5}, {"K", 4}}, in);
  const tx::Array& C = out.at("C");
  for (int64_t l = 0; l < 2; ++l)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 5; ++j) {
        float s = 0;
        for (int64_t k = 0; k < 4; ++k) s += at(in.at("A"), {l, i, k}) * at(in.at("B"), {l, j, k});
        EXPECT_EQ(at(C, {l, i, j}), bf16(s));
      }
}

TEST(TxInterp, ReluPrologueAndBiasReluEpilogue) {
  Inputs in;
  auto out = run_example("relu_gemm", {{"M", 3}, {"N", 4}, {"K", 5}}, in);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      float s = 0;
      for (int64_t k = 0; k < 5; ++k) s += std::max(0.0f, at(in.at("A"), {i, k})) * at(in.at("B"), {k, j});
      EXPECT_EQ(at(out.at("C"), {i, j}), bf16(s));
    }
  Inputs in2;
  auto out2 = run_example("gemm_bias_relu", {{"M", 3}, {"N", 4}, {"K", 5}}, in2);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      float s = 0;
      for (int64_t k = 0; k < 5; ++k) s += at(in2.at("A"), {i, k}) * at(in2.at("B"), {k, j});
      EXPECT_EQ(at(out2.at("C"), {i, j}), bf16(std::max(0.0f, s + at(in2.at("bias"), {j}))));
    }
}

TEST(TxInterp, AddGemmSumsBothProducts) {
  Inputs in;
  auto out = run_example("add_gemm", {{"M", 2}, {"N", 3}, {"K", 4}, {"K2", 5}}, in);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      float p = 0, q = 0;
      for (int64_t k = 0; k < 4; ++k) p += at(in.at("A"), {i, k}) * at(in.at("B"), {k, j});
      for (int64_t k = 0; k < 5; ++k) q += at(in.at("X"), {i, k}) * at(in.at("Y"), {k, j});
      EXPECT_EQ(at(out.at("D"), {i, j}), bf16(p + q));
    }
}

TEST(TxInterp, MlpRoundsTheHiddenBufferToBf16) {
  Inputs in;
  auto out = run_example("mlp", {{"T", 2}, {"D", 3}, {"F", 4}}, in);
  for (int64_t t = 0; t < 2; ++t)
    for (int64_t e = 0; e < 3; ++e) {
      float y = 0;
      for (int64_t f = 0; f < 4; ++f) {
        float g = 0;
        for (int64_t d = 0; d < 3; ++d) g += at(in.at("X"), {t, d}) * at(in.at("W1"), {d, f});
        const float h = bf16(tx::apply_function("gelu", g + at(in.at("b1"), {f})));
        y += h * at(in.at("W2"), {f, e});
      }
      EXPECT_EQ(at(out.at("Y"), {t, e}), bf16(y));
    }
}

TEST(TxInterp, SoftmaxRowsSumToOne) {
  Inputs in;
  auto out = run_example("softmax", {{"M", 3}, {"N", 11}}, in);
  for (int64_t i = 0; i < 3; ++i) {
    float mx = -INFINITY, s = 0, sum = 0;
    for (int64_t j = 0; j < 11; ++j) mx = std::max(mx, at(in.at("X"), {i, j}));
    for (int64_t j = 0; j < 11; ++j) s += std::exp(at(in.at("X"), {i, j}) - mx);
    for (int64_t j = 0; j < 11; ++j) {
      EXPECT_EQ(at(out.at("Y"), {i, j}), bf16(std::exp(at(in.at("X"), {i, j}) - mx) / s));
      sum += at(out.at("Y"), {i, j});
    }
    EXPECT_NEAR(sum, 1.0, 0.02);
  }
}

TEST(TxInterp, LayernormHasZeroMeanUnitVariance) {
  auto c = compile_tx(read_file(source_dir() + "/examples/tx/layernorm.tx"));
  ASSERT_TRUE(c->model) << c->errors();
  const int64_t N = 64;
  Inputs in = tx::random_inputs(*c->model, {{"M", 2}, {"N", N}}, 5);
  for (float& g : in["gamma"].data) g = 1;
  for (float& b : in["beta"].data) b = 0;
  auto out = tx::interpret_tx(*c->model, {{"M", 2}, {"N", N}}, in);
  for (int64_t i = 0; i < 2; ++i) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < N; ++j) mean += at(out.at("Y"), {i, j}) / N;
    for (int64_t j = 0; j < N; ++j) var += std::pow(at(out.at("Y"), {i, j}) - mean, 2) / N;
    EXPECT_NEAR(mean, 0, 0.02);
    EXPECT_NEAR(var, 1, 0.02);
  }
}

TEST(TxInterp, Transpose) {
  Inputs in;
  auto out = run_example("transpose", {{"M", 3}, {"N", 5}}, in);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j) EXPECT_EQ(at(out.at("B"), {j, i}), at(in.at("A"), {i, j}));
}

TEST(TxInterp, QuasiAffineIndicesUseFloorSemantics) {
  auto c = compile_tx("in A: f32[N];\nin P: f32[2];\nout B: f32[2 * N];\n"
                      "par 2 * N i { B[i] = A[i / 2] * 10 + P[(i + 3) % 2]; }\n");
  ASSERT_TRUE(c->model) << c->errors();
  EXPECT_FALSE(c->diag->has_errors()) << c->errors();
  Inputs in;
  in["A"] = {DType::F32, {3}, {1, 2, 3}};
  in["P"] = {DType::F32, {2}, {0.25f, 0.5f}};
  auto out = tx::interpret_tx(*c->model, {{"N", 3}}, in);
  EXPECT_EQ(out.at("B").data, (std::vector<float>{10.5f, 10.25f, 20.5f, 20.25f, 30.5f, 30.25f}));
}

TEST(TxInterp, MissingSizeIsAUserError) {
  auto c = compile_tx(read_file(source_dir() + "/examples/tx/gemm.tx"));
  ASSERT_TRUE(c->model);
  EXPECT_THROW(tx::random_inputs(*c->model, {{"M", 2}, {"N", 2}}, 1), CompileError);
}

}  // namespace
}  // namespace loom::test
