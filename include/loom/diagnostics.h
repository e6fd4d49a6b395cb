// loom/diagnostics.h — source locations and the diagnostics every user-facing failure goes through.
//
// Two kinds of blame (Halide's habit): a *user error* is a bad program or mapping and is reported as
// `file:line:col: error: message` (+ notes and a hint) through DiagnosticEngine; an *internal error*
// is a compiler bug and is raised with LOOM_INTERNAL (an InternalError exception the CLI turns into
// exit status 2). Tests: tests/unit/diagnostics_test.cpp and every error test under tests/errors/.
#pragma once

#include <cstdint>
#include <exception>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace loom {

// A position in a source buffer. line/col are 1-based; line 0 means "no location".
struct SourceLoc {
  uint32_t file = 0;  // index into SourceManager
  uint32_t line = 0;
  uint32_t col = 0;
  bool valid() const { return line != 0; }
};

// Owns the text of every buffer loom reads, so locations can be printed with their line.
class SourceManager {
 public:
  uint32_t add(std::string name, std::string text);
  const std::string& name(uint32_t file) const { return files_.at(file).name; }
  const std::string& text(uint32_t file) const { return files_.at(file).text; }
  // The text of one line (without its newline), or "" when out of range.
  std::string line_text(uint32_t file, uint32_t line) const;
  size_t size() const { return files_.size(); }

 private:
  struct File {
    std::string name, text;
  };
  std::vector<File> files_;
};

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLoc loc;
  std::string message;
  std::string hint;               // one line suggestion; empty when none helps
  std::vector<Diagnostic> notes;  // related places (declarations, launch sites)
};

// Collects diagnostics; prints them as text (`file:line:col: error: ...` with the source line and a
// caret) or as JSON Lines (--diagnostics=json): one object per diagnostic and line,
//   {"severity":"error","file":"gemm.loom","line":12,"column":5,"message":"...","hint":"...","notes":[...]}
// with "hint" only when there is one, each note an object of the same shape, and
// line = column = 0 for a diagnostic that has no place in a file (docs/cli.md).
class DiagnosticEngine {
 public:
  explicit DiagnosticEngine(const SourceManager& sm) : sm_(sm) {}

  // Reports an error and returns it so the caller can attach notes / a hint.
  Diagnostic& error(SourceLoc loc, std::string message);
  Diagnostic& warning(SourceLoc loc, std::string message);
  static void note(Diagnostic& d, SourceLoc loc, std::string message);
  // Adds a finished diagnostic (e.g. a CompileError's) as it is.
  void report(Diagnostic d);

  bool has_errors() const { return errors_ > 0; }
  int error_count() const { return errors_; }
  const std::vector<Diagnostic>& all() const { return diags_; }

  // Stop collecting after this many errors (a malformed file must not flood the terminal).
  static constexpr int kMaxErrors = 50;
  bool too_many() const { return errors_ >= kMaxErrors; }

  std::string format_text(bool with_source_line = true) const;
  std::string format_json() const;
  std::string location(SourceLoc loc) const;  // "file:line:col"

 private:
  const SourceManager& sm_;
  std::vector<Diagnostic> diags_;
  int errors_ = 0;
};

// A user error found by a middle-end pass (e.g. a tensor mapped to NONE that must still live in
// memory, shared memory over the mapping's budget): the pass throws it, lower_to_event_ir's callers
// report `diagnostic` through their DiagnosticEngine and exit with status 1. The front end reports
// its errors directly; passes throw because one such error makes the rest of the lowering moot.
class CompileError : public std::exception {
 public:
  explicit CompileError(Diagnostic d) : diagnostic(std::move(d)) {}
  const char* what() const noexcept override { return diagnostic.message.c_str(); }
  Diagnostic diagnostic;
};

// A compiler bug, never the user's fault. The CLI reports it and exits with status 2.
class InternalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void internal_error(const char* file, int line, const std::string& message);

}  // namespace loom

#define LOOM_INTERNAL(msg)                                              \
  do {                                                                  \
    std::ostringstream loom_internal_os_;                               \
    loom_internal_os_ << msg;                                           \
    ::loom::internal_error(__FILE__, __LINE__, loom_internal_os_.str()); \
  } while (0)

#define LOOM_ASSERT(cond, msg)                                 \
  do {                                                         \
    if (!(cond)) LOOM_INTERNAL("assertion `" #cond "` failed: " << msg); \
  } while (0)
