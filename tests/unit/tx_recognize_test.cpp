// Contraction recognition (src/tx/recognize.h) on every example: the ContractionKernel fields
// (batch, m/n/k, operands, transposes, prologues, bias, residual, activation, terms), the fused
// statements, and the reasons given for what is not a contraction.
#include "tx/recognize.h"
#include "tx_test_util.h"

namespace loom::test {
namespace {

struct Recognized {
  std::unique_ptr<TxCompiled> c;
  tx::Recognition r;
};

Recognized recognize(const std::string& example) {
  Recognized out;
  out.c = compile_tx(read_file(source_dir() + "/examples/tx/" + example + ".tx"), example + ".tx");
  EXPECT_FALSE(out.c->diag->has_errors()) << out.c->errors();
  if (out.c->model) out.r = tx::recognize_contractions(*out.c->model, example, example + ".tx");
  return out;
}

TEST(TxRecognize, Gemm) {
  Recognized g = recognize("gemm");
  ASSERT_EQ(g.r.kernels.size(), 1u);
  const tx::ContractionKernel& k = g.r.kernels[0];
  EXPECT_EQ(k.name, "gemm");
  EXPECT_TRUE(k.batch.empty());
  EXPECT_EQ(k.m, "M");
  EXPECT_EQ(k.n, "N");
  ASSERT_EQ(k.terms.size(), 1u);
  EXPECT_EQ(k.terms[0].k, "K");
  EXPECT_EQ(k.terms[0].a.name, "A");
  EXPECT_EQ(k.terms[0].b.name, "B");
  EXPECT_EQ(k.terms[0].a.dtype, DType::BF16);
  EXPECT_FALSE(k.terms[0].a.transposed);
  EXPECT_FALSE(k.terms[0].b.transposed);
  EXPECT_EQ(k.out.name, "C");
  EXPECT_EQ(k.loc.line, 9);
  EXPECT_TRUE(g.r.rejected.empty());
  EXPECT_EQ(tx::describe(k), "gemm: C[M, N] = sum_K A[M, K] * B[K, N]");
}

TEST(TxRecognize, BatchedGemmWithTransposedB) {
  Recognized g = recognize("batched_gemm");
  ASSERT_EQ(g.r.kernels.size(), 1u);
  const tx::ContractionKernel& k = g.r.kernels[0];
  EXPECT_EQ(k.batch, std::vector<std::string>{"L"});
  EXPECT_FALSE(k.terms[0].a.transposed);
  EXPECT_TRUE(k.terms[0].b.transposed);
}

TEST(TxRecognize, TransposedOperandsInEitherOrder) {
  auto c = compile_tx("in A: f32[K, M];\nin B: f32[K, N];\nout C: f32[M, N];\n"
                      "par M i { par N j { seq K k { C[i, j] += f32(B[k, j]) * A[k, i]; } } }\n");
  ASSERT_TRUE(c->model) << c->errors();
  tx::Recognition r = tx::recognize_contractions(*c->model, "t", "t.tx");
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].terms[0].a.name, "A");  // the factor holding i is A, whatever its place
  EXPECT_TRUE(r.kernels[0].terms[0].a.transposed);
  EXPECT_FALSE(r.kernels[0].terms[0].b.transposed);
}

TEST(TxRecognize, ReluPrologueRemovesTheBuffer) {
  Recognized g = recognize("relu_gemm");
  ASSERT_EQ(g.r.kernels.size(), 1u);
  const tx::TxTerm& t = g.r.kernels[0].terms[0];
  EXPECT_EQ(t.a.name, "A");
  EXPECT_EQ(t.a.prologue, tx::Pointwise::Relu);
  EXPECT_EQ(t.b.prologue, tx::Pointwise::Identity);
  EXPECT_EQ(g.r.statements[0].size(), 2u);
  EXPECT_TRUE(g.r.rejected.empty());
}

TEST(TxRecognize, BiasReluEpilogue) {
  Recognized g = recognize("gemm_bias_relu");
  ASSERT_EQ(g.r.kernels.size(), 1u);
  const tx::ContractionKernel& k = g.r.kernels[0];
  ASSERT_TRUE(k.bias.has_value());
  EXPECT_EQ(k.bias->name, "bias");
  EXPECT_FALSE(k.residual.has_value());
  EXPECT_EQ(k.activation, tx::Pointwise::Relu);
  EXPECT_EQ(k.out.name, "C");
  EXPECT_EQ(g.r.statements[0].size(), 3u);  // H = 0, H += A * B, C = relu(H + bias)
}

TEST(TxRecognize, ResidualEpilogueInPlace) {
  auto c = compile_tx("in A: bf16[M, K];\nin B: bf16[K, N];\nin R: bf16[M, N];\nout C: bf16[M, N];\n"
                      "par M i { par N j { seq K k { C[i, j] += A[i, k] * B[k, j]; } } }\n"
                      "par M i { par N j { C[i, j] = silu(R[i, j] + C[i, j]); } }\n");
  ASSERT_TRUE(c->model) << c->errors();
  tx::Recognition r = tx::recognize_contractions(*c->model, "t", "t.tx");
  ASSERT_EQ(r.kernels.size(), 1u);
  ASSERT_TRUE(r.kernels[0].residual.has_value());
  EXPECT_EQ(r.kernels[0].residual->name, "R");
  EXPECT_EQ(r.kernels[0].activation, tx::Pointwise::Silu);
  EXPECT_TRUE(r.rejected.empty());
}

TEST(TxRecognize, AddGemmIsOneKernelWithTwoTerms) {
  Recognized g = recognize("add_gemm");
  ASSERT_EQ(g.r.kernels.size(), 1u);
  const tx::ContractionKernel& k = g.r.kernels[0];
  ASSERT_EQ(k.terms.size(), 2u);
  EXPECT_EQ(k.terms[0].k, "K");
  EXPECT_EQ(k.terms[1].k, "K2");
  EXPECT_EQ(k.terms[1].a.name, "X");
  EXPECT_FALSE(k.residual.has_value());
  EXPECT_EQ(k.out.name, "D");
  EXPECT_TRUE(g.r.rejected.empty());
}

TEST(TxRecognize, MlpIsTwoKernels) {
  Recognized g = recognize("mlp");
  ASSERT_EQ(g.r.kernels.size(), 2u);
  EXPECT_EQ(g.r.kernels[0].name, "mlp_H");
  EXPECT_EQ(g.r.kernels[0].activation, tx::Pointwise::Gelu);
  EXPECT_EQ(g.r.kernels[0].bias->name, "b1");
  EXPECT_EQ(g.r.kernels[0].out.dtype, DType::BF16);
  EXPECT_EQ(g.r.kernels[1].terms[0].a.name, "H");
  EXPECT_EQ(g.r.kernels[1].m, "T");
  EXPECT_EQ(g.r.kernels[1].n, "D");
  EXPECT_EQ(g.r.kernels[1].terms[0].k, "F");
}

TEST(TxRecognize, NonContractionsAreReportedWithAReason) {
  for (const char* ex : {"transpose", "softmax", "layernorm"}) {
    Recognized g = recognize(ex);
    EXPECT_TRUE(g.r.kernels.empty()) << ex;
    EXPECT_FALSE(g.r.rejected.empty()) << ex;
    for (const auto& x : g.r.rejected) EXPECT_EQ(x.reason.rfind("not a contraction: ", 0), 0u) << x.reason;
  }
  Recognized t = recognize("transpose");
  EXPECT_NE(tx::format_recognition(*t.c->model, t.r).find("it assigns with `=`"), std::string::npos);
}

TEST(TxRecognize, UnfusableConsumerIsReported) {
  // exp(H) + bias: the activation is not last, so the consumer stays a separate statement.
  auto c = compile_tx("in A: bf16[M, K];\nin B: bf16[K, N];\nin b: bf16[N];\nout C: bf16[M, N];\nnew H: f32[M, N];\n"
                      "par M i { par N j { seq K k { H[i, j] += A[i, k] * B[k, j]; } } }\n"
                      "par M i { par N j { C[i, j] = exp(H[i, j]) + b[j]; } }\n");
  ASSERT_TRUE(c->model) << c->errors();
  tx::Recognition r = tx::recognize_contractions(*c->model, "t", "t.tx");
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].out.name, "H");
  ASSERT_EQ(r.rejected.size(), 1u);
  EXPECT_NE(r.rejected[0].reason.find("not fused into the epilogue"), std::string::npos) << r.rejected[0].reason;
}

}  // namespace
}  // namespace loom::test
