// libFuzzer entry point over the loom front end: everything `loom check`, `loom fmt` and
// `loom compile --emit=ast|tree` do with an untrusted buffer, in the same order and under the same
// rules as the CLI (tools/loom/main.cpp). Built by `make fuzz` with clang, ASan and UBSan
// (tests/fuzz/CMakeLists.txt); run by scripts/fuzz.sh; described in docs/fuzzing.md.
//
// A finding is any of:
//   - a sanitizer report (memory error, leak, undefined behaviour — UBSan does not recover),
//     a stack overflow, a hang (libFuzzer -timeout) or running out of memory;
//   - a loom::InternalError or any other exception escaping the front end (the CLI would exit 2:
//     "this is a bug in loom, not in your program");
//   - a broken `loom fmt` contract on a program that parsed without errors: the canonical text does
//     not parse, parses to a different program (dump_program differs), or is not a fixed point of
//     format_program.
// Each one aborts with a message saying which, so the crash file under fuzz-crashes/ is the
// reproduction: `build-fuzz/loom_fuzz fuzz-crashes/crash-...`.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "loom/check.h"
#include "loom/frontend.h"

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "\n==loom_fuzz== FINDING: %s\n%s\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

void run_one(const std::string& text) {
  using namespace loom;
  SourceManager sm;
  uint32_t file = sm.add("fuzz.loom", text);
  DiagnosticEngine diag(sm);
  Program program = parse_program(sm, file, diag);

  // Diagnostics are printed for every input, good or bad, in both formats.
  auto render_diagnostics = [&] {
    std::string t = diag.format_text(true);
    std::string j = diag.format_json();
    if (diag.has_errors() && t.empty()) finding("errors reported but format_text() is empty", "");
    (void)j;
  };
  if (diag.has_errors()) {
    render_diagnostics();
    return;  // like the CLI: no later stage runs on a program with syntax errors
  }

  // `loom fmt` round trip: parse(format(p)) is p, and format is idempotent.
  std::string dump1 = dump_program(program);
  std::string printed = format_program(program);
  SourceManager sm2;
  uint32_t file2 = sm2.add("formatted.loom", printed);
  DiagnosticEngine diag2(sm2);
  Program reparsed = parse_program(sm2, file2, diag2);
  if (diag2.has_errors())
    finding("format_program produced text that does not parse",
            "--- formatted text ---\n" + printed + "\n--- diagnostics ---\n" + diag2.format_text(true));
  std::string dump2 = dump_program(reparsed);
  if (dump1 != dump2)
    finding("round trip changed the program: dump(parse(format(p))) != dump(p)",
            "--- formatted text ---\n" + printed + "\n--- dump of p ---\n" + dump1 +
                "\n--- dump of parse(format(p)) ---\n" + dump2);
  std::string printed2 = format_program(reparsed);
  if (printed2 != printed)
    finding("format_program is not idempotent: format(parse(format(p))) != format(p)",
            "--- format(p) ---\n" + printed + "\n--- format(parse(format(p))) ---\n" + printed2);

  // `loom check` / `loom compile --emit=tree`.
  std::optional<TaskTree> tree = check_program(program, diag);
  render_diagnostics();
  if (tree && !diag.has_errors()) {
    std::string shown = format_task_tree(*tree);
    (void)shown;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    run_one(text);
  } catch (const loom::InternalError& e) {
    finding("loom::InternalError (the CLI would exit 2)", e.what());
  } catch (const std::exception& e) {
    finding("exception escaped the front end (the CLI would exit 2)", e.what());
  } catch (...) {
    finding("non-standard exception escaped the front end", "");
  }
  return 0;
}
