// Recursive-descent parser for .tx text (grammar in docs/tensor-expressions.md). It reuses the
// .loom lexer (src/lang/lexer.h): the token sets coincide, `+=` is `+` followed by `=`.
// Test: tests/unit/tx_parse_test.cpp and the syntax cases under tests/errors/tx/.
#include <cmath>
#include <cstdlib>
#include <limits>

#include "lang/lexer.h"
#include "tx/ast.h"

namespace loom::tx {
namespace {

struct SyntaxError {};

constexpr int kMaxDepth = 200;  // nesting of loops and parentheses (a hostile file must not overflow the stack)

bool is_keyword(const std::string& s) {
  return s == "in" || s == "out" || s == "new" || s == "par" || s == "seq" || s == "inf";
}

class Parser {
 public:
  Parser(std::vector<Token> toks, DiagnosticEngine& diag) : toks_(std::move(toks)), diag_(diag) {}

  TxProgram run() {
    TxProgram p;
    p.header = toks_.front().comments;
    for (size_t i = 0; i < toks_.size(); ++i)
      if ((i > 0 && !toks_[i].comments.empty()) || !toks_[i].trailing.empty()) p.misplaced_comments.push_back(toks_[i].loc);
    while (!at(Tok::End) && !diag_.too_many()) {
      size_t start = pos_;
      try {
        p.items.push_back(parse_item(true));
      } catch (SyntaxError&) {
        recover();
        if (pos_ == start) ++pos_;
      }
    }
    return p;
  }

 private:
  std::vector<Token> toks_;
  size_t pos_ = 0;
  DiagnosticEngine& diag_;
  int depth_ = 0;

  const Token& cur() const { return toks_[pos_]; }
  bool at(Tok k) const { return cur().kind == k; }
  bool is_word(const char* w) const { return at(Tok::Ident) && cur().text == w; }
  Token take() {
    Token t = cur();
    if (!at(Tok::End)) ++pos_;
    return t;
  }

  [[noreturn]] void fail(const std::string& msg, const std::string& hint = "") {
    auto& d = diag_.error(cur().loc, msg);
    d.hint = hint;
    throw SyntaxError{};
  }
  std::string found() const {
    if (at(Tok::Ident) || at(Tok::Int) || at(Tok::Float)) return "'" + cur().text + "'";
    return token_name(cur().kind);
  }
  Token expect(Tok k, const char* what) {
    if (!at(k)) fail(std::string("expected ") + token_name(k) + " " + what + ", found " + found());
    return take();
  }
  Token expect_name(const char* what) {
    if (!at(Tok::Ident)) fail(std::string("expected a name ") + what + ", found " + found());
    if (is_keyword(cur().text)) fail("'" + cur().text + "' is a keyword and cannot name " + std::string(what).substr(4));
    return take();
  }

  // Skips to just after the next `;` or `}` at this nesting level.
  void recover() {
    int braces = 0;
    while (!at(Tok::End)) {
      Tok k = take().kind;
      if (k == Tok::LBrace) ++braces;
      if (k == Tok::RBrace && --braces <= 0) return;
      if (k == Tok::Semi && braces == 0) return;
    }
  }

  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& q) : p(q) {
      if (++p.depth_ > kMaxDepth) p.fail("nesting is deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    ~DepthGuard() { --p.depth_; }
  };

  // item := decl | loop | assign
  Stmt parse_item(bool top) {
    Stmt s;
    s.loc = cur().loc;
    if (is_word("in") || is_word("out") || is_word("new")) {
      std::string role = take().text;
      if (role != "new" && !top)
        fail_at(s.loc, "'" + role + "' tensors are declared at the top level, outside every loop",
                "declare a local buffer inside a loop with `new`");
      s.kind = Stmt::Kind::Decl;
      s.role = role == "in" ? Role::In : role == "out" ? Role::Out : Role::New;
      Token n = expect_name("for the tensor");
      s.name = n.text;
      s.name_loc = n.loc;
      expect(Tok::Colon, "after the tensor's name");
      Token t = expect_name("for the element type");
      std::optional<DType> dt = parse_dtype(t.text);
      if (!dt || *dt == DType::I32) {
        auto& d = diag_.error(t.loc, "unknown element type '" + t.text + "'");
        d.hint = "tensor expressions use bf16, f16 or f32";
        throw SyntaxError{};
      }
      s.dtype = *dt;
      expect(Tok::LBracket, "before the tensor's extents");
      s.extents.push_back(parse_expr());
      while (at(Tok::Comma)) {
        take();
        s.extents.push_back(parse_expr());
      }
      expect(Tok::RBracket, "after the tensor's extents");
      expect(Tok::Semi, "after the declaration");
      return s;
    }
    if (is_word("par") || is_word("seq")) {
      DepthGuard g(*this);
      s.kind = Stmt::Kind::Loop;
      s.par = take().text == "par";
      s.extent = parse_expr();
      Token v = expect_name("for the loop index");
      s.var = v.text;
      s.name_loc = v.loc;
      expect(Tok::LBrace, "to open the loop body");
      while (!at(Tok::RBrace)) {
        if (at(Tok::End)) fail("expected '}' to close the loop on '" + s.var + "', found end of file");
        size_t start = pos_;
        try {
          s.body.push_back(parse_item(false));
        } catch (SyntaxError&) {
          if (diag_.too_many()) throw;
          recover_in_body();
          if (pos_ == start) ++pos_;
        }
      }
      take();
      return s;
    }
    s.kind = Stmt::Kind::Assign;
    if (!at(Tok::Ident) || is_keyword(cur().text))
      fail("expected a declaration, a loop or an assignment, found " + found(),
           "statements are `in|out|new X: dtype[...];`, `par N i { ... }`, `seq N k { ... }` or `X[...] = ...;`");
    s.lhs = parse_primary();
    if (s.lhs.kind != Expr::Kind::Access)
      fail_at(s.lhs.loc, "the left side of an assignment must be a tensor element `" + s.lhs.name + "[...]`");
    if (at(Tok::Plus)) {
      take();
      if (!at(Tok::Assign)) fail("expected '=' after '+' (the accumulation `+=`), found " + found());
      s.accumulate = true;
    } else if (!at(Tok::Assign)) {
      fail("expected '=' or '+=' after " + print_expr(s.lhs) + ", found " + found());
    }
    take();
    s.rhs = parse_expr();
    expect(Tok::Semi, "after the assignment");
    return s;
  }

  // After an error inside a loop body: skip to the end of the statement, leaving a `}` that closes
  // the loop for the loop to take.
  void recover_in_body() {
    int braces = 0;
    while (!at(Tok::End)) {
      if (at(Tok::RBrace) && braces == 0) return;
      Tok k = take().kind;
      if (k == Tok::LBrace) ++braces;
      if (k == Tok::RBrace) --braces;
      if (k == Tok::Semi && braces == 0) return;
    }
  }

  [[noreturn]] void fail_at(SourceLoc loc, const std::string& msg, const std::string& hint = "") {
    auto& d = diag_.error(loc, msg);
    d.hint = hint;
    throw SyntaxError{};
  }

  // expr := term (('+' | '-') term)*
  Expr parse_expr() {
    DepthGuard g(*this);
    Expr e = parse_term();
    while (at(Tok::Plus) || at(Tok::Minus)) {
      // `+=` ends an expression (the left side of an accumulation).
      if (at(Tok::Plus) && toks_[pos_ + 1].kind == Tok::Assign) break;
      Token op = take();
      e = binary(op, std::move(e), parse_term());
    }
    return e;
  }
  // term := unary (('*' | '/' | '%') unary)*
  Expr parse_term() {
    Expr e = parse_unary();
    while (at(Tok::Star) || at(Tok::Slash) || at(Tok::Percent)) {
      Token op = take();
      e = binary(op, std::move(e), parse_unary());
    }
    return e;
  }
  static Expr binary(const Token& op, Expr l, Expr r) {
    Expr b;
    b.kind = Expr::Kind::Binary;
    b.loc = op.loc;
    b.op = op.text[0];
    b.args.push_back(std::move(l));
    b.args.push_back(std::move(r));
    return b;
  }
  // unary := '-' unary | primary
  Expr parse_unary() {
    if (at(Tok::Minus)) {
      DepthGuard g(*this);
      Expr n;
      n.kind = Expr::Kind::Neg;
      n.loc = take().loc;
      n.args.push_back(parse_unary());
      return n;
    }
    return parse_primary();
  }
  // primary := INT | FLOAT | 'inf' | NAME | NAME '[' exprs ']' | NAME '(' exprs ')' | '(' expr ')'
  Expr parse_primary() {
    Expr e;
    e.loc = cur().loc;
    if (at(Tok::Int)) {
      e.kind = Expr::Kind::Int;
      e.ival = take().ival;
      return e;
    }
    if (at(Tok::Float)) {
      e.kind = Expr::Kind::Float;
      const Token& t = take();
      e.fval = std::strtod(t.text.c_str(), nullptr);
      if (!(std::fabs(e.fval) <= std::numeric_limits<float>::max())) {  // values are fp32
        auto& d = diag_.error(t.loc, "the number " + t.text + " is out of range for f32");
        d.hint = "write inf for an infinity";
      }
      return e;
    }
    if (at(Tok::LParen)) {
      take();
      e = parse_expr();
      expect(Tok::RParen, "to close the parenthesis");
      return e;
    }
    if (is_word("inf")) {
      take();
      e.kind = Expr::Kind::Inf;
      return e;
    }
    if (!at(Tok::Ident) || is_keyword(cur().text)) fail("expected an expression, found " + found());
    e.name = take().text;
    e.kind = Expr::Kind::Name;
    if (at(Tok::LBracket) || at(Tok::LParen)) {
      const bool access = at(Tok::LBracket);
      e.kind = access ? Expr::Kind::Access : Expr::Kind::Call;
      take();
      const Tok close = access ? Tok::RBracket : Tok::RParen;
      if (!at(close)) {
        e.args.push_back(parse_expr());
        while (at(Tok::Comma)) {
          take();
          e.args.push_back(parse_expr());
        }
      }
      expect(close, access ? "after the indices" : "after the arguments");
    }
    return e;
  }
};

}  // namespace

TxProgram parse_tx(const SourceManager& sm, uint32_t file, DiagnosticEngine& diag) {
  std::vector<Token> toks = lex(sm, file, diag);
  return Parser(std::move(toks), diag).run();
}

}  // namespace loom::tx
