// The tensor-expression parser and printer (src/tx/ast.h): every example round-trips
// (parse(print(p)) is the same program, and printing is a fixed point), the grammar's pieces parse
// to the expected trees, and random expressions survive print -> parse (property test; the seed is
// printed on failure).
#include <random>

#include "tx_test_util.h"

namespace loom::test {
namespace {

tx::TxProgram parse(const std::string& text, std::string* errors = nullptr) {
  SourceManager sm;
  uint32_t f = sm.add("t.tx", text);
  DiagnosticEngine diag(sm);
  tx::TxProgram p = tx::parse_tx(sm, f, diag);
  if (errors) *errors = diag.format_text(false);
  else EXPECT_FALSE(diag.has_errors()) << diag.format_text(false);
  return p;
}

TEST(TxParse, EveryExampleRoundTrips) {
  ASSERT_GE(tx_example_files().size(), 9u);
  for (const auto& path : tx_example_files()) {
    SCOPED_TRACE(path.string());
    tx::TxProgram p = parse(read_file(path));
    ASSERT_FALSE(p.items.empty());
    const std::string printed = tx::print_tx(p);
    tx::TxProgram q = parse(printed);
    EXPECT_TRUE(tx::same(p, q)) << printed;
    EXPECT_EQ(tx::print_tx(q), printed);
  }
}

TEST(TxParse, StatementsAndPrecedence) {
  tx::TxProgram p = parse("in A: bf16[M, K];\nout C: f32[M];\npar M i {\n  seq K k {\n    C[i] += -A[i, k] * 2 + 3 / (k + 1);\n  }\n}\n");
  ASSERT_EQ(p.items.size(), 3u);
  EXPECT_EQ(p.items[0].kind, tx::Stmt::Kind::Decl);
  EXPECT_EQ(p.items[0].dtype, DType::BF16);
  EXPECT_EQ(p.items[1].role, tx::Role::Out);
  const tx::Stmt& loop = p.items[2];
  ASSERT_EQ(loop.kind, tx::Stmt::Kind::Loop);
  EXPECT_TRUE(loop.par);
  EXPECT_EQ(loop.var, "i");
  const tx::Stmt& inner = loop.body.at(0);
  EXPECT_FALSE(inner.par);
  const tx::Stmt& a = inner.body.at(0);
  EXPECT_TRUE(a.accumulate);
  // (-A[i, k] * 2) + (3 / (k + 1))
  ASSERT_EQ(a.rhs.kind, tx::Expr::Kind::Binary);
  EXPECT_EQ(a.rhs.op, '+');
  EXPECT_EQ(a.rhs.args[0].op, '*');
  EXPECT_EQ(a.rhs.args[0].args[0].kind, tx::Expr::Kind::Neg);
  EXPECT_EQ(tx::print_expr(a.rhs), "-A[i, k] * 2 + 3 / (k + 1)");
}

TEST(TxParse, PrinterKeepsNeededParentheses) {
  tx::TxProgram p = parse("out C: f32[N];\npar N i { C[i] = (1 - (2 - 3)) * -(4 + 5) / (6 * 7) + 1e-05 + inf; }\n");
  const std::string e = tx::print_expr(p.items[1].body[0].rhs);
  EXPECT_EQ(e, "(1 - (2 - 3)) * -(4 + 5) / (6 * 7) + 1e-05 + inf");
}

TEST(TxParse, SyntaxErrorsAreLocatedAndRecovered) {
  std::string errors;
  parse("in A: f32[M];\nout B f32[M];\nout C: f32[M];\npar M i { B[i] = ; C[i] = A[i]; }\n", &errors);
  EXPECT_NE(errors.find("t.tx:2:7: error: expected ':' after the tensor's name"), std::string::npos) << errors;
  EXPECT_NE(errors.find("t.tx:4:18: error: expected an expression"), std::string::npos) << errors;
}

TEST(TxParse, DeepNestingIsAnErrorNotACrash) {
  std::string errors;
  parse("out C: f32[N];\npar N i { C[i] = " + std::string(5000, '(') + "1" + std::string(5000, ')') + "; }\n", &errors);
  EXPECT_NE(errors.find("nesting is deeper than"), std::string::npos) << errors;
}

// Random expressions over + - * / %, negation, calls, accesses and literals print and re-parse to
// the same tree.
tx::Expr random_expr(std::mt19937& rng, int depth) {
  tx::Expr e;
  const int pick = depth <= 0 ? static_cast<int>(rng() % 4) : static_cast<int>(rng() % 8);
  switch (pick) {
    case 0: e.kind = tx::Expr::Kind::Int; e.ival = rng() % 100; break;
    case 1: e.kind = tx::Expr::Kind::Float; e.fval = static_cast<double>(rng() % 1000) / 64.0 + 0.5; break;
    case 2: e.kind = tx::Expr::Kind::Name; e.name = "i"; break;
    case 3: e.kind = tx::Expr::Kind::Inf; break;
    case 4: e.kind = tx::Expr::Kind::Neg; e.args.push_back(random_expr(rng, depth - 1)); break;
    case 5:
      e.kind = tx::Expr::Kind::Call;
      e.name = "max";
      e.args.push_back(random_expr(rng, depth - 1));
      e.args.push_back(random_expr(rng, depth - 1));
      break;
    case 6:
      e.kind = tx::Expr::Kind::Access;
      e.name = "A";
      e.args.push_back(random_expr(rng, depth - 1));
      break;
    default:
      e.kind = tx::Expr::Kind::Binary;
      e.op = "+-*/%"[rng() % 5];
      e.args.push_back(random_expr(rng, depth - 1));
      e.args.push_back(random_expr(rng, depth - 1));
      break;
  }
  return e;
}

TEST(TxParse, PropertyRandomExpressionsRoundTrip) {
  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  for (int n = 0; n < 500; ++n) {
    tx::Expr e = random_expr(rng, 5);
    const std::string text = "out A: f32[N];\nA[0] = " + tx::print_expr(e) + ";\n";
    tx::TxProgram p = parse(text);
    ASSERT_EQ(p.items.size(), 2u) << "seed " << seed << ": " << text;
    ASSERT_TRUE(tx::same(p.items[1].rhs, e)) << "seed " << seed << ": " << text << " reprinted as "
                                             << tx::print_expr(p.items[1].rhs);
  }
}

}  // namespace
}  // namespace loom::test
