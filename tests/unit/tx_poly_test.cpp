// The polyhedral model (src/tx/poly.h): domains, accesses and dependences as ISL computes them;
// every example passes the bounds and `par` checks; illegal `par` loops are refused naming the
// dependence, legal ones (privatized buffers, disjoint writes) pass.
#include "tx_test_util.h"

namespace loom::test {
namespace {

TEST(TxPoly, EveryExampleIsLegal) {
  for (const auto& path : tx_example_files()) {
    auto c = compile_tx(read_file(path), path.filename().string());
    EXPECT_FALSE(c->diag->has_errors()) << path << "\n" << c->errors();
  }
}

TEST(TxPoly, GemmDomainAccessesAndReductionDependence) {
  auto c = compile_tx(read_file(source_dir() + "/examples/tx/gemm.tx"));
  ASSERT_TRUE(c->model) << c->errors();
  ASSERT_EQ(c->poly.domains.size(), 1u);
  EXPECT_NE(c->poly.domains[0].find("S0[i, j, k]"), std::string::npos) << c->poly.domains[0];
  EXPECT_NE(c->poly.domains[0].find("0 <= k < K"), std::string::npos) << c->poly.domains[0];
  ASSERT_EQ(c->poly.accesses.size(), 4u);  // write C, read C (+=), read A, read B
  EXPECT_TRUE(c->poly.accesses[0].write);
  EXPECT_NE(c->poly.accesses[2].relation.find("-> A[i, k]"), std::string::npos);
  // The only flow dependence: C[i, j] from iteration k to k + 1, carried by the seq loop.
  int flow = 0;
  for (const tx::TxDependence& d : c->poly.deps)
    if (d.kind == tx::DepKind::Flow) {
      ++flow;
      EXPECT_EQ(c->model->tensors[d.tensor].name, "C");
      EXPECT_NE(d.relation.find("k' = 1 + k"), std::string::npos) << d.relation;
    }
  EXPECT_EQ(flow, 1);
  const std::string text = tx::format_poly(*c->model, c->poly);
  EXPECT_NE(text.find("# flow dependences\nC: "), std::string::npos) << text;
}

TEST(TxPoly, ReductionUnderParIsRefusedNamingTheDependence) {
  auto c = compile_tx("in A: f32[M, K];\nout s: f32[M];\npar M i {\n  par K k {\n    s[i] += A[i, k];\n  }\n}\n");
  const std::string e = c->errors();
  EXPECT_NE(e.find("test.tx:4:3: error: `par` loop 'k' carries a flow dependence on 's': s[i] is written by the statement at 5:5"),
            std::string::npos) << e;
  EXPECT_EQ(e.find("loop 'i' carries"), std::string::npos) << "the i loop is legal:\n" << e;
}

TEST(TxPoly, PrivateBufferInsideParIsLegalButSharedOneIsNot) {
  auto ok = compile_tx("in A: f32[M, N];\nout B: f32[M];\npar M i {\n  new t: f32[1];\n  seq N j {\n    t[0] += A[i, j];\n  }\n  B[i] = t[0];\n}\n");
  EXPECT_FALSE(ok->diag->has_errors()) << ok->errors();
  auto bad = compile_tx("in A: f32[M, N];\nout B: f32[M];\nnew t: f32[1];\npar M i {\n  seq N j {\n    t[0] += A[i, j];\n  }\n  B[i] = t[0];\n}\n");
  EXPECT_NE(bad->errors().find("`par` loop 'i' carries"), std::string::npos) << bad->errors();
  EXPECT_NE(bad->errors().find("on 't'"), std::string::npos) << bad->errors();
}

TEST(TxPoly, DisjointStridedWritesAreLegal) {
  // Even and odd elements written by two par loops in one nest: no two iterations meet.
  auto c = compile_tx("in A: f32[N];\nout B: f32[2 * N];\npar N i {\n  B[2 * i] = A[i];\n  B[2 * i + 1] = -A[i];\n}\n");
  EXPECT_FALSE(c->diag->has_errors()) << c->errors();
  // ... but i / 2 makes two iterations write one element.
  auto bad = compile_tx("in A: f32[N];\nout B: f32[N];\npar N i {\n  B[i / 2] = A[i];\n}\n");
  EXPECT_NE(bad->errors().find("carries an output dependence on 'B'"), std::string::npos) << bad->errors();
}

TEST(TxPoly, OutOfBoundsExampleNamesAPoint) {
  auto c = compile_tx("in A: f32[M];\nout B: f32[M];\npar M i {\n  B[i] = A[M - 1 - i] + A[i - 1];\n}\n");
  const std::string e = c->errors();
  EXPECT_NE(e.find("test.tx:4:25: error: out-of-bounds access: A[i - 1] can leave 'A' [M] (for example at M = 1, i = 0)"),
            std::string::npos) << e;
  EXPECT_EQ(e.find("A[M - 1 - i] can leave"), std::string::npos) << "the reversed index is in bounds:\n" << e;
}

}  // namespace
}  // namespace loom::test
