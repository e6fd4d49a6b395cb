// Lexer for .loom text. See lexer.h.
#include "lang/lexer.h"

#include <cctype>
#include <limits>

namespace loom {

const char* token_name(Tok t) {
  switch (t) {
    case Tok::Ident: return "identifier";
    case Tok::Int: return "integer";
    case Tok::Float: return "number";
    case Tok::RawCode: return "'%{ ... %}' code block";
    case Tok::End: return "end of file";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::LBracket: return "'['";
    case Tok::RBracket: return "']'";
    case Tok::LBrace: return "'{'";
    case Tok::RBrace: return "'}'";
    case Tok::Lt: return "'<'";
    case Tok::Gt: return "'>'";
    case Tok::Comma: return "','";
    case Tok::Semi: return "';'";
    case Tok::Colon: return "':'";
    case Tok::Assign: return "'='";
    case Tok::Plus: return "'+'";
    case Tok::Minus: return "'-'";
    case Tok::Star: return "'*'";
    case Tok::Slash: return "'/'";
    case Tok::Percent: return "'%'";
  }
  return "token";
}

namespace {

class Lexer {
 public:
  Lexer(const std::string& text, uint32_t file, DiagnosticEngine& diag)
      : s_(text), file_(file), diag_(diag) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    std::vector<std::string> pending;
    bool line_has_token = false;
    bool line_has_comment = false;
    while (true) {
      // Whitespace and comments.
      while (pos_ < s_.size()) {
        char c = s_[pos_];
        if (c == '\n') {
          // A blank line inside a run of comments is kept as the marker "\n" (printed as an empty line).
          if (!line_has_token && !line_has_comment && !pending.empty() && pending.back() != "\n")
            pending.push_back("\n");
          line_has_token = false;
          line_has_comment = false;
          advance();
        } else if (c == ' ' || c == '\t' || c == '\r') {
          advance();
        } else if (c == '/' && peek(1) == '/') {
          size_t start = pos_;
          while (pos_ < s_.size() && s_[pos_] != '\n') advance();
          std::string body = s_.substr(start + 2, pos_ - start - 2);
          while (!body.empty() && (body.back() == ' ' || body.back() == '\r')) body.pop_back();
          // A comment after code on the same line trails the line's last token.
          if (!line_has_token) pending.push_back(body);
          else if (!out.empty()) out.back().trailing = body;
          line_has_comment = true;
        } else {
          break;
        }
      }
      Token t;
      t.loc = here();
      if (pos_ >= s_.size()) {
        t.kind = Tok::End;
        t.comments = std::move(pending);
        out.push_back(std::move(t));
        return out;
      }
      line_has_token = true;
      char c = s_[pos_];
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t start = pos_;
        while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) advance();
        t.kind = Tok::Ident;
        t.text = s_.substr(start, pos_ - start);
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        lex_number(t);
      } else if (c == '%' && peek(1) == '{') {
        if (!lex_raw(t)) continue;
      } else {
        t.kind = punct(c);
        if (t.kind == Tok::End) {
          std::string shown = std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c)
                                                                           : "\\x" + hex(static_cast<unsigned char>(c));
          diag_.error(t.loc, "unexpected character '" + shown + "'");
          advance();
          if (diag_.too_many()) {
            Token e;
            e.loc = here();
            e.kind = Tok::End;
            out.push_back(e);
            return out;
          }
          continue;
        }
        t.text = std::string(1, c);
        advance();
      }
      t.comments = std::move(pending);
      pending.clear();
      out.push_back(std::move(t));
    }
  }

 private:
  static std::string hex(unsigned v) {
    const char* d = "0123456789abcdef";
    return std::string{d[v >> 4], d[v & 15]};
  }
  char peek(size_t k) const { return pos_ + k < s_.size() ? s_[pos_ + k] : '\0'; }
  SourceLoc here() const { return {file_, line_, col_}; }
  void advance() {
    if (pos_ >= s_.size()) return;
    if (s_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }

  static Tok punct(char c) {
    switch (c) {
      case '(': return Tok::LParen;
      case ')': return Tok::RParen;
      case '[': return Tok::LBracket;
      case ']': return Tok::RBracket;
      case '{': return Tok::LBrace;
      case '}': return Tok::RBrace;
      case '<': return Tok::Lt;
      case '>': return Tok::Gt;
      case ',': return Tok::Comma;
      case ';': return Tok::Semi;
      case ':': return Tok::Colon;
      case '=': return Tok::Assign;
      case '+': return Tok::Plus;
      case '-': return Tok::Minus;
      case '*': return Tok::Star;
      case '/': return Tok::Slash;
      case '%': return Tok::Percent;
      default: return Tok::End;
    }
  }

  void lex_number(Token& t) {
    size_t start = pos_;
    while (std::isdigit(static_cast<unsigned char>(peek(0)))) advance();
    bool is_float = false;
    if (peek(0) == '.' && std::isdigit(static_cast<unsigned char>(peek(1)))) {
      is_float = true;
      advance();
      while (std::isdigit(static_cast<unsigned char>(peek(0)))) advance();
    }
    if ((peek(0) == 'e' || peek(0) == 'E') &&
        (std::isdigit(static_cast<unsigned char>(peek(1))) ||
         ((peek(1) == '+' || peek(1) == '-') && std::isdigit(static_cast<unsigned char>(peek(2)))))) {
      is_float = true;
      advance();
      if (peek(0) == '+' || peek(0) == '-') advance();
      while (std::isdigit(static_cast<unsigned char>(peek(0)))) advance();
    }
    t.text = s_.substr(start, pos_ - start);
    if (is_float) {
      t.kind = Tok::Float;
      return;
    }
    t.kind = Tok::Int;
    int64_t v = 0;
    for (char d : t.text) {
      int digit = d - '0';
      if (v > (std::numeric_limits<int64_t>::max() - digit) / 10) {
        diag_.error(t.loc, "integer literal '" + t.text + "' does not fit in 64 bits");
        v = 0;
        break;
      }
      v = v * 10 + digit;
    }
    t.ival = v;
  }

  bool lex_raw(Token& t) {
    advance();
    advance();  // %{
    size_t start = pos_;
    while (pos_ < s_.size() && !(s_[pos_] == '%' && peek(1) == '}')) advance();
    if (pos_ >= s_.size()) {
      diag_.error(t.loc, "unterminated code block: '%{' has no matching '%}'");
      t.kind = Tok::RawCode;  // keep parsing: the rest of the file is the block
      t.text = s_.substr(start);
      return true;
    }
    t.kind = Tok::RawCode;
    t.text = s_.substr(start, pos_ - start);
    advance();
    advance();  // %}
    return true;
  }

  const std::string& s_;
  uint32_t file_;
  DiagnosticEngine& diag_;
  size_t pos_ = 0;
  uint32_t line_ = 1, col_ = 1;
};

}  // namespace

std::vector<Token> lex(const SourceManager& sm, uint32_t file, DiagnosticEngine& diag) {
  return Lexer(sm.text(file), file, diag).run();
}

}  // namespace loom
