// Recursive-descent parser for .loom text. The grammar is in docs/language.md; each parse_* function
// names the production it reads. After a syntax error the parser skips to the next top-level
// declaration, so one typo yields one diagnostic. Test: tests/unit/parser_test.cpp and the syntax
// cases under tests/errors/.
#include <functional>

#include "lang/lexer.h"
#include "loom/frontend.h"

namespace loom {
namespace {

struct SyntaxError {};

class Parser {
 public:
  Parser(std::vector<Token> toks, DiagnosticEngine& diag) : toks_(std::move(toks)), diag_(diag) {}

  Program run() {
    Program p;
    while (!at(Tok::End) && !diag_.too_many()) {
      size_t start = pos_;
      try {
        if (is_word("task")) {
          p.add(parse_task());
        } else if (is_word("variant")) {
          p.add(parse_variant());
        } else if (is_word("mapping")) {
          Mapping m = parse_mapping();
          if (p.mapping && !m.when) {
            auto& d = diag_.error(m.loc, "a program has one default mapping block; a later one needs a `when(...)` condition");
            d.hint = "write `mapping " + m.target.name + " when(cdiv(M, 128) * cdiv(N, 256) < SMS) { ... }` to specialize the default for some extents";
            DiagnosticEngine::note(d, p.mapping->loc, "the default mapping block is here");
          } else if (!p.mapping && m.when) {
            auto& d = diag_.error(m.when->loc, "the first mapping block is the default and has no `when(...)`");
            d.hint = "put the mapping without a condition first; specializations follow it";
          } else if (m.when) {
            if (m.target.name != p.mapping->target.name) {
              auto& d = diag_.error(m.target.loc, "a specialized mapping targets `" + m.target.name + "` but the default targets `" +
                                                  p.mapping->target.name + "`");
              DiagnosticEngine::note(d, p.mapping->loc, "the default mapping block is here");
            }
            p.specializations.push_back(std::move(m));
          } else {
            p.mapping = std::move(m);
          }
        } else {
          error_here("expected 'task', 'variant' or 'mapping' at top level");
        }
      } catch (SyntaxError&) {
        recover();
      }
      if (pos_ == start) ++pos_;  // always make progress
    }
    p.trailing_comments = toks_.back().comments;
    // Comments no node took (inside an expression, between clauses) cannot be printed back.
    for (size_t i = 0; i < toks_.size(); ++i) {
      if (!toks_[i].trailing.empty()) p.misplaced_comments.push_back(toks_[i].loc);
      if (i + 1 < toks_.size() && !toks_[i].comments.empty()) p.misplaced_comments.push_back(toks_[i].loc);
    }
    return p;
  }

 private:
  // ---- token helpers ----
  const Token& cur() const { return toks_[std::min(pos_, toks_.size() - 1)]; }
  const Token& peek(size_t k) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  bool at(Tok k) const { return cur().kind == k; }
  bool is_word(const char* w) const { return at(Tok::Ident) && cur().text == w; }
  Token take() {
    Token t = cur();
    if (pos_ < toks_.size() - 1) ++pos_;
    return t;
  }
  // The same-line comment after the token just taken, if any (then it is consumed).
  std::string take_trailing() {
    if (pos_ == 0) return "";
    std::string t = std::move(toks_[pos_ - 1].trailing);
    toks_[pos_ - 1].trailing.clear();
    return t;
  }
  std::vector<std::string> take_comments() {
    std::vector<std::string> c = std::move(toks_[std::min(pos_, toks_.size() - 1)].comments);
    toks_[std::min(pos_, toks_.size() - 1)].comments.clear();
    return c;
  }

  [[noreturn]] void error_here(const std::string& msg, const std::string& hint = "") {
    std::string found = at(Tok::End) ? "end of file"
                        : at(Tok::Ident) ? "'" + cur().text + "'"
                        : at(Tok::RawCode) ? "a code block"
                                           : "'" + cur().text + "'";
    auto& d = diag_.error(cur().loc, msg + ", found " + found);
    d.hint = hint;
    throw SyntaxError{};
  }
  Token expect(Tok k, const char* what_for) {
    if (!at(k)) {
      // A missing ';' belongs at the end of the line it is missing from, not at the next token.
      if (k == Tok::Semi && pos_ > 0 && toks_[pos_ - 1].loc.line < cur().loc.line) {
        const Token& prev = toks_[pos_ - 1];
        SourceLoc end = prev.loc;
        end.col += static_cast<uint32_t>(prev.kind == Tok::RawCode ? 0 : prev.text.size());
        auto& d = diag_.error(end, std::string("expected ';' ") + what_for);
        d.hint = "add ';' at the end of this line";
        throw SyntaxError{};
      }
      error_here(std::string("expected ") + token_name(k) + " " + what_for);
    }
    return take();
  }
  void expect_word(const char* w, const char* what_for) {
    if (!is_word(w)) error_here(std::string("expected '") + w + "' " + what_for);
    take();
  }
  Ident ident(const char* what) {
    if (!at(Tok::Ident)) error_here(std::string("expected ") + what);
    Token t = take();
    return {t.text, t.loc};
  }

  // Skips to the next top-level declaration keyword at brace depth 0.
  void recover() {
    int depth = 0;
    if (is_word("task") || is_word("variant") || is_word("mapping")) return;  // the error is at the next declaration
    while (!at(Tok::End)) {
      if (at(Tok::LBrace)) ++depth;
      if (at(Tok::RBrace)) {
        if (--depth <= 0 && depth < 0) depth = 0;
      }
      take();
      if (depth == 0 && (is_word("task") || is_word("variant") || is_word("mapping"))) return;
    }
  }

  template <typename F>
  void comma_list(Tok close, F item) {
    if (at(close)) return;
    while (true) {
      item();
      if (!at(Tok::Comma)) break;
      take();
    }
  }

  // '(' item {',' item} ')' after the clause word `clause` (already taken).
  template <typename F>
  void paren_list(const std::string& clause, F item) {
    expect(Tok::LParen, ("after '" + clause + "'").c_str());
    comma_list(Tok::RParen, item);
    expect(Tok::RParen, ("to close '" + clause + "'").c_str());
  }

  // ---- task := 'task' IDENT ['<' IDENT {, IDENT} '>'] '(' [param {, param}] ')' ';' ----
  TaskDecl parse_task() {
    TaskDecl t;
    t.comments = take_comments();
    take();  // task
    t.name = ident("a task name after 'task'");
    if (at(Tok::Lt)) {
      take();
      comma_list(Tok::Gt, [&] { t.type_params.push_back(ident("a type parameter name")); });
      expect(Tok::Gt, "to close the type parameter list");
    }
    expect(Tok::LParen, "to open the parameter list");
    comma_list(Tok::RParen, [&] { t.params.push_back(parse_param()); });
    expect(Tok::RParen, "to close the parameter list");
    expect(Tok::Semi, "after a task declaration");
    t.trailing_comment = take_trailing();
    return t;
  }

  // After the word `red`: '(' (sum | max) ')'.
  Privilege reduce_op(SourceLoc red_loc) {
    expect(Tok::LParen, "after 'red' (red(sum) or red(max))");
    Ident op = ident("a reduction: sum or max");
    expect(Tok::RParen, "to close red(...)");
    if (op.name == "sum") return Privilege::ReduceSum;
    if (op.name == "max") return Privilege::ReduceMax;
    auto& d = diag_.error(op.loc, "unknown reduction '" + op.name + "'");
    d.hint = "reductions are red(sum) (for rowsum) and red(max) (for rowmax)";
    throw SyntaxError{};
  }

  std::optional<Privilege> privilege_word(const std::string& w) {
    if (w == "r") return Privilege::Read;
    if (w == "w") return Privilege::Write;
    if (w == "rw") return Privilege::ReadWrite;
    return std::nullopt;
  }

  // param := IDENT ':' (priv ELEM '[' IDENT {, IDENT} ']' | SCALARTYPE)
  Param parse_param() {
    Param p;
    p.name = ident("a parameter name");
    expect(Tok::Colon, "after the parameter name");
    Ident first = ident("a privilege (r, w, rw, red(sum), red(max)) or a scalar type");
    std::optional<Privilege> pr = privilege_word(first.name);
    if (first.name == "red") pr = reduce_op(first.loc);
    if (pr) {
      p.is_tensor = true;
      p.priv = *pr;
      p.elem = ident("an element type (f16, bf16, f32, i32) or a type parameter");
      expect(Tok::LBracket, "to open the tensor's dimension names");
      comma_list(Tok::RBracket, [&] { p.dims.push_back(ident("a dimension name")); });
      expect(Tok::RBracket, "to close the tensor's dimension names");
      if (p.dims.empty()) {
        auto& d = diag_.error(p.name.loc, "tensor parameter '" + p.name.name + "' needs at least one dimension");
        d.hint = "name each dimension, e.g. '" + p.name.name + ": r f16[M, K]'";
      }
    } else {
      p.is_tensor = false;
      p.elem = first;
    }
    return p;
  }

  // ---- variant ----
  // variant := 'variant' IDENT 'of' IDENT '(' [vparam {, vparam}] ')' ':' ('inner'|'leaf') {clause}
  //            (block | 'extern' RAWCODE)
  VariantDecl parse_variant() {
    VariantDecl v;
    v.comments = take_comments();
    take();  // variant
    v.name = ident("a variant name after 'variant'");
    expect_word("of", "after the variant name (variant NAME of TASK(...))");
    v.task = ident("the name of the task this variant implements");
    expect(Tok::LParen, "to open the variant's parameter list");
    comma_list(Tok::RParen, [&] {
      VariantParam vp;
      vp.name = ident("a parameter name");
      if (at(Tok::Colon)) {
        take();
        Ident pw = ident("a privilege (r, w, rw, red(sum), red(max))");
        vp.priv = pw.name == "red" ? std::optional<Privilege>(reduce_op(pw.loc)) : privilege_word(pw.name);
        vp.priv_loc = pw.loc;
        if (!vp.priv) {
          diag_.error(pw.loc, "unknown privilege '" + pw.name + "'").hint = "privileges are r, w, rw, red(sum) and red(max)";
          throw SyntaxError{};
        }
      }
      v.params.push_back(vp);
    });
    expect(Tok::RParen, "to close the variant's parameter list");
    expect(Tok::Colon, "before the variant kind (inner or leaf)");
    Ident kind = ident("'inner' or 'leaf'");
    v.kind_loc = kind.loc;
    if (kind.name == "inner") {
      v.kind = VariantKind::Inner;
    } else if (kind.name == "leaf") {
      v.kind = VariantKind::Leaf;
    } else {
      diag_.error(kind.loc, "expected 'inner' or 'leaf', found '" + kind.name + "'");
      throw SyntaxError{};
    }
    while (true) {
      if (is_word("tunables")) {
        take();
        paren_list("tunables", [&] { v.tunables.push_back(ident("a tunable name")); });
      } else if (is_word("on")) {
        take();
        paren_list("on", [&] { v.processors.push_back(ident("a processor level")); });
      } else {
        break;
      }
    }
    if (is_word("extern")) {
      v.extern_loc = take().loc;
      v.is_extern = true;
      if (!at(Tok::RawCode))
        error_here("expected a '%{ ... %}' CUDA C++ code block after 'extern'");
      v.extern_code = take().text;
      return v;
    }
    v.body = parse_block(&v.closing_comments, &v.trailing_comment);
    return v;
  }

  std::vector<Stmt> parse_block(std::vector<std::string>* closing, std::string* trailing) {
    expect(Tok::LBrace, "to open a body");
    *trailing = take_trailing();
    std::vector<Stmt> out;
    while (!at(Tok::RBrace)) {
      if (at(Tok::End)) error_here("expected '}' to close a body");
      out.push_back(parse_stmt());
    }
    *closing = take_comments();
    take();
    return out;
  }

  // stmt := IDENT '=' expr ';' | [IDENT ':'] IDENT '(' args ')' ';' | (prange|srange) vars 'in' exprs block
  Stmt parse_stmt() {
    Stmt s;
    s.comments = take_comments();
    s.loc = cur().loc;
    ++depth_;
    struct Guard {
      int& d;
      ~Guard() { --d; }
    } guard{depth_};
    if (depth_ > kMaxDepth) error_here("nesting is too deep");
    if (is_word("prange") || is_word("srange")) {
      s.kind = StmtKind::Loop;
      s.parallel = take().text == "prange";
      comma_list(Tok::End, [&] { s.vars.push_back(ident("a loop variable")); });
      expect_word("in", "after the loop variables");
      comma_list(Tok::End, [&] { s.extents.push_back(parse_expr()); });
      if (s.extents.size() != s.vars.size()) {
        auto& d = diag_.error(s.loc, "loop has " + std::to_string(s.vars.size()) + " variable(s) but " +
                                         std::to_string(s.extents.size()) + " extent(s)");
        d.hint = "write one extent per variable: prange i, j in M, N { ... }";
      }
      s.body = parse_block(&s.closing_comments, &s.trailing_comment);
      return s;
    }
    Ident first = ident("a statement (binding, launch, prange or srange)");
    if (at(Tok::Assign)) {
      take();
      s.kind = StmtKind::Bind;
      s.target = first;
      s.value = parse_expr();
      expect(Tok::Semi, "after a binding");
      s.trailing_comment = take_trailing();
      return s;
    }
    s.kind = StmtKind::Call;
    if (at(Tok::Colon)) {
      take();
      s.label = first;
      s.target = ident("a task name after the launch label");
    } else {
      s.target = first;
    }
    expect(Tok::LParen, "to open the argument list (or '=' for a binding)");
    comma_list(Tok::RParen, [&] { s.args.push_back(parse_expr()); });
    expect(Tok::RParen, "to close the argument list");
    expect(Tok::Semi, "after a launch");
    s.trailing_comment = take_trailing();
    return s;
  }

  // ---- expressions: additive > multiplicative > unary > postfix > primary ----
  static constexpr int kMaxDepth = 200;
  int depth_ = 0;

  Expr parse_expr() {
    ++depth_;
    struct Guard {
      int& d;
      ~Guard() { --d; }
    } guard{depth_};
    if (depth_ > kMaxDepth) error_here("expression is nested too deeply");
    Expr lhs = parse_term();
    while (at(Tok::Plus) || at(Tok::Minus)) {
      Token op = take();
      Expr rhs = parse_term();
      lhs = Expr::binary(op.text[0], std::move(lhs), std::move(rhs), op.loc);
    }
    return lhs;
  }
  Expr parse_term() {
    Expr lhs = parse_unary();
    while (at(Tok::Star) || at(Tok::Slash) || at(Tok::Percent)) {
      Token op = take();
      Expr rhs = parse_unary();
      lhs = Expr::binary(op.text[0], std::move(lhs), std::move(rhs), op.loc);
    }
    return lhs;
  }
  Expr parse_unary() {
    if (at(Tok::Minus)) {
      Token op = take();
      ++depth_;
      struct Guard {
        int& d;
        ~Guard() { --d; }
      } guard{depth_};
      if (depth_ > kMaxDepth) error_here("expression is nested too deeply");
      return Expr::unary('-', parse_unary(), op.loc);
    }
    return parse_postfix();
  }
  Expr parse_postfix() {
    Expr e = parse_primary();
    while (at(Tok::LBracket)) {
      Token lb = take();
      std::vector<Expr> idx;
      comma_list(Tok::RBracket, [&] { idx.push_back(parse_expr()); });
      expect(Tok::RBracket, "to close the index list");
      if (idx.empty()) diag_.error(lb.loc, "an index needs at least one coordinate");
      e = Expr::index(std::move(e), std::move(idx), e.loc);
    }
    return e;
  }
  Expr parse_primary() {
    const Token& t = cur();
    switch (t.kind) {
      case Tok::Int: {
        Token n = take();
        return Expr::integer(n.ival, n.loc);
      }
      case Tok::Float: {
        Token n = take();
        return Expr::floating(n.text, n.loc);
      }
      case Tok::Star: {
        Token s = take();
        return Expr::star(s.loc);
      }
      case Tok::LParen: {
        take();
        Expr e = parse_expr();
        expect(Tok::RParen, "to close the parenthesis");
        return e;
      }
      case Tok::LBracket: {
        Token lb = take();
        std::vector<Expr> items;
        comma_list(Tok::RBracket, [&] { items.push_back(parse_expr()); });
        expect(Tok::RBracket, "to close the list");
        return Expr::list(std::move(items), lb.loc);
      }
      case Tok::Ident: {
        Token id = take();
        if (at(Tok::LParen)) {
          take();
          std::vector<Expr> args;
          comma_list(Tok::RParen, [&] { args.push_back(parse_expr()); });
          expect(Tok::RParen, "to close the argument list");
          return Expr::call(id.text, std::move(args), id.loc);
        }
        return Expr::ident(id.text, id.loc);
      }
      default:
        error_here("expected an expression");
    }
  }

  // ---- mapping ----
  // mapping := 'mapping' TARGET '{' {instance} '}'
  Mapping parse_mapping() {
    Mapping m;
    m.comments = take_comments();
    m.loc = take().loc;  // mapping
    m.target = ident("a target machine after 'mapping' (sm_90a or sm_80)");
    if (is_word("when")) {
      MappingCondition c;
      c.loc = take().loc;
      expect(Tok::LParen, "after 'when'");
      if (is_word("fastest") && peek(1).kind == Tok::RParen) {  // when(fastest): chosen by the cost model
        take();
        take();
        c.fastest = true;
        m.when = std::move(c);
      } else {
        c.lhs = parse_expr();
        if (at(Tok::Lt) || at(Tok::Gt)) {
          c.cmp = at(Tok::Lt) ? "<" : ">";
          take();
          if (at(Tok::Assign)) {
            take();
            c.cmp += "=";
          }
        } else {
          error_here("expected a comparison (<, <=, > or >=) in the mapping's `when(...)`");
        }
        c.rhs = parse_expr();
        expect(Tok::RParen, "to close the mapping's `when(...)`");
        m.when = std::move(c);
      }
    }
    expect(Tok::LBrace, "to open the mapping");
    while (!at(Tok::RBrace)) {
      if (at(Tok::End)) error_here("expected '}' to close the mapping");
      m.instances.push_back(parse_instance());
    }
    m.closing_comments = take_comments();
    take();
    return m;
  }

  // instance := 'instance' IDENT '=' IDENT 'on' IDENT {clause} ';'
  Instance parse_instance() {
    Instance in;
    in.comments = take_comments();
    expect_word("instance", "to start a mapping instance");
    in.name = ident("an instance name");
    expect(Tok::Assign, "after the instance name");
    in.variant = ident("the variant this instance runs");
    expect_word("on", "before the processor level (e.g. 'on BLOCK')");
    in.processor = ident("a processor level (HOST, BLOCK, WARPGROUP, WARP, THREAD)");
    while (!at(Tok::Semi)) {
      if (!at(Tok::Ident)) error_here("expected an instance clause or ';'",
                                      "clauses are mem, tune, call, entry, warpspecialize, pipeline, pingpong, splitk, streamk, multicast, alternate, kteams, schedule, regs, smem, layout");
      Ident c = ident("an instance clause");
      if (c.name == "mem") {
        in.mem_loc = c.loc;
        paren_list("mem", [&] { in.mems.push_back(ident("a memory (GLOBAL, SHARED, REGISTER, NONE)")); });
      } else if (c.name == "tune") {
        paren_list("tune", [&] {
          TuneValue tv;
          tv.name = ident("a tunable name");
          expect(Tok::Assign, "after the tunable name");
          tv.value = parse_expr();
          in.tunes.push_back(std::move(tv));
        });
      } else if (c.name == "call") {
        paren_list("call", [&] {
          Dispatch d;
          d.key = ident("a task name or launch label");
          expect(Tok::Colon, "between the launched task and its instance");
          d.instance = ident("an instance name");
          in.calls.push_back(d);
        });
      } else if (c.name == "entry") {
        in.entry = true;
        in.entry_loc = c.loc;
        if (at(Tok::LParen)) {
          take();
          comma_list(Tok::RParen, [&] {
            TypeBinding b;
            b.name = ident("a type parameter");
            expect(Tok::Assign, "after the type parameter");
            b.type = ident("an element type");
            in.entry_types.push_back(b);
          });
          expect(Tok::RParen, "to close 'entry'");
        }
      } else if (c.name == "warpspecialize" || c.name == "nowarpspecialize") {
        in.warp_specialize = c.name == "warpspecialize";
        in.ws_loc = c.loc;
      } else if (c.name == "pingpong") {
        in.pingpong = true;
        in.pingpong_loc = c.loc;
        if (at(Tok::LParen)) {
          take();
          if (!at(Tok::Ident) || cur().text != "double_buffer")
            error_here("expected 'double_buffer' in 'pingpong(...)'",
                       "pingpong(double_buffer) keeps the deferred mma's register operands in two copies; plain `pingpong` takes no argument");
          take();
          expect(Tok::RParen, "to close 'pingpong'");
          in.pingpong_double_buffer = true;
        }
      } else if (c.name == "schedule") {
        in.schedule_loc = c.loc;
        expect(Tok::LParen, "after 'schedule'");
        if (!at(Tok::Ident) || cur().text != "optimal")
          error_here("expected a scheduling policy", "schedule(optimal) asks the compiler to solve the loop's schedule");
        take();
        if (at(Tok::Comma)) {
          take();
          if (!at(Tok::Ident) || cur().text != "budget")
            error_here("expected 'budget=' after 'schedule(optimal,'", "schedule(optimal, budget=B) gives the search B million solver units");
          in.schedule_budget_loc = cur().loc;
          take();
          expect(Tok::Assign, "after 'budget'");
          in.schedule_budget = expect(Tok::Int, "(the search's budget in millions of solver units)").ival;
        }
        expect(Tok::RParen, "to close 'schedule'");
        in.schedule_optimal = true;
      } else if (c.name == "streamk") {
        in.streamk = true;
        in.streamk_loc = c.loc;
      } else if (c.name == "multicast") {
        in.multicast_loc = c.loc;
        expect(Tok::LParen, "after 'multicast'");
        in.multicast = expect(Tok::Int, "(the blocks of a cluster that share their loads)").ival;
        if (at(Tok::Comma)) {
          take();
          in.multicast_n = expect(Tok::Int, "(the cluster's blocks along the inner block loop)").ival;
        }
        expect(Tok::RParen, "to close 'multicast'");
      } else if (c.name == "regs") {
        in.regs_loc = c.loc;
        expect(Tok::LParen, "after 'regs'");
        const int64_t dma = expect(Tok::Int, "(the registers per thread of the DMA warpgroup)").ival;
        expect(Tok::Comma, "between the DMA and the compute warpgroups' registers");
        const int64_t compute = expect(Tok::Int, "(the registers per thread of each compute warpgroup)").ival;
        expect(Tok::RParen, "to close 'regs'");
        in.regs = std::make_pair(dma, compute);
      } else if (c.name == "alternate") {
        in.alternate_loc = c.loc;
        expect(Tok::LParen, "after 'alternate'");
        in.alternate = expect(Tok::Int, "(the teams of compute warpgroups that take the block's tiles in turn)").ival;
        expect(Tok::RParen, "to close 'alternate'");
      } else if (c.name == "kteams") {
        in.kteams_loc = c.loc;
        expect(Tok::LParen, "after 'kteams'");
        in.kteams = expect(Tok::Int, "(the teams of compute warpgroups that share each tile's K loop)").ival;
        expect(Tok::RParen, "to close 'kteams'");
      } else if (c.name == "splitk") {
        in.splitk_loc = c.loc;
        expect(Tok::LParen, "after 'splitk'");
        in.splitk = expect(Tok::Int, "(the number of blocks that share a tile's K loop)").ival;
        expect(Tok::RParen, "to close 'splitk'");
      } else if (c.name == "pipeline") {
        in.pipeline_loc = c.loc;
        expect(Tok::LParen, "after 'pipeline'");
        in.pipeline = expect(Tok::Int, "(the pipeline depth)").ival;
        expect(Tok::RParen, "to close 'pipeline'");
      } else if (c.name == "smem") {
        in.smem_loc = c.loc;
        expect(Tok::LParen, "after 'smem'");
        Token n = expect(Tok::Int, "(the shared-memory budget, e.g. 227KB)");
        int64_t mult = 1;
        in.smem_spelling = n.text;
        if (at(Tok::Ident)) {
          Token u = take();
          if (u.text == "KB" || u.text == "KiB") mult = 1024;
          else if (u.text == "B") mult = 1;
          else {
            diag_.error(u.loc, "unknown size unit '" + u.text + "'").hint = "write bytes (smem(232448)) or KB (smem(227KB))";
            throw SyntaxError{};
          }
          in.smem_spelling += u.text;
        }
        if (n.ival > (int64_t(1) << 40)) {
          diag_.error(n.loc, "shared-memory budget " + n.text + " is absurdly large");
          throw SyntaxError{};
        }
        in.smem_bytes = n.ival * mult;
        expect(Tok::RParen, "to close 'smem'");
      } else if (c.name == "layout") {
        paren_list("layout", [&] {
          LayoutSpec ls;
          ls.arg = ident("a tensor argument name");
          expect(Tok::Colon, "after the tensor argument name");
          do {
            ls.attrs.push_back(ident("a layout attribute (row_major, col_major, swizzle128, ...)"));
          } while (at(Tok::Ident));
          in.layouts.push_back(std::move(ls));
        });
      } else {
        auto& d = diag_.error(c.loc, "unknown instance clause '" + c.name + "'");
        d.hint = "clauses are mem, tune, call, entry, warpspecialize, nowarpspecialize, pipeline, pingpong, splitk, streamk, multicast, "
                 "alternate, kteams, schedule, regs, smem, layout";
        throw SyntaxError{};
      }
    }
    take();  // ;
    in.trailing_comment = take_trailing();
    return in;
  }

  std::vector<Token> toks_;
  DiagnosticEngine& diag_;
  size_t pos_ = 0;
};

}  // namespace

Program parse_program(const SourceManager& sm, uint32_t file, DiagnosticEngine& diag) {
  std::vector<Token> toks = lex(sm, file, diag);
  return Parser(std::move(toks), diag).run();
}

}  // namespace loom
