// Lexer for .loom text. Produces tokens with locations; `//` comments on their own lines are kept
// and attached to the next token so `loom fmt` can preserve them. Test: tests/unit/parser_test.cpp.
#pragma once

#include <string>
#include <vector>

#include "loom/diagnostics.h"

namespace loom {

enum class Tok {
  Ident, Int, Float, RawCode, End,
  LParen, RParen, LBracket, RBracket, LBrace, RBrace, Lt, Gt,
  Comma, Semi, Colon, Assign, Plus, Minus, Star, Slash, Percent,
};

const char* token_name(Tok t);

struct Token {
  Tok kind = Tok::End;
  SourceLoc loc;
  std::string text;  // identifier, number spelling, or raw code body
  int64_t ival = 0;
  std::vector<std::string> comments;  // whole-line `//` comments before this token
  std::string trailing;               // a `//` comment after this token on the same line
};

// Tokenizes the whole buffer; lexical errors are reported and the offending character skipped.
std::vector<Token> lex(const SourceManager& sm, uint32_t file, DiagnosticEngine& diag);

}  // namespace loom
