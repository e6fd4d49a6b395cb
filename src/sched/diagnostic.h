// diagnostic.h — user-facing errors of `loom schedule`.
//
// A UserError is the user's fault (bad JSON, bad graph, bad machine, bad flag) and carries a
// position where one is known; the CLI prints it as `file:line:col: error: message` (or
// `file: error: message`) and exits 1. Anything else that escapes is an internal error (exit 2).
// Tested by tests/sched/cli_test.cpp.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace loom::sched {

struct SourcePos {
  int line = 0;  // 1-based; 0 = unknown
  int col = 0;
};

class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& msg, SourcePos pos = {}) : std::runtime_error(msg), pos(pos) {}
  SourcePos pos;
};

// Line/column of a byte offset in `text` (1-based; offsets past the end clamp to the end).
SourcePos position_of_offset(std::string_view text, std::size_t offset);

// Best-effort position of the `nth` (0-based) occurrence of `needle` in `text` at or after the first
// occurrence of `after` (empty = from the start). Returns {0,0} if not found. Used to point
// semantic errors (unknown node in an edge, ...) at the offending text, since the JSON library does
// not keep element positions.
SourcePos find_position(std::string_view text, std::string_view needle, std::string_view after = {},
                        int nth = 0);

// "file:line:col: error: msg" or "file: error: msg" (`severity` "warning" for a warning).
std::string format_error(std::string_view file, const UserError& e, std::string_view severity = "error");

// The same as one line of JSON, in the shape of every loom diagnostic (--diagnostics=json,
// docs/cli.md): {"severity","file","line","column","message","hint"?,"notes":[]}; line = column = 0
// when the position is unknown.
std::string format_diagnostic_json(std::string_view file, const UserError& e, std::string_view severity = "error",
                                   std::string_view hint = "");

}  // namespace loom::sched
