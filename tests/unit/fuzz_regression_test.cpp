// Fuzz regressions: every file under tests/fuzz/regressions/ is an input that once crashed, hung or
// broke the `loom fmt` round trip in the fuzzer (tests/fuzz/fuzz_parse_check.cpp, docs/fuzzing.md),
// or a hand-made nasty input (deep nesting, huge integers, binary garbage). Each one goes through
// what the CLI does with an untrusted buffer — parse, then (without syntax errors) format + re-parse
// + check — and must come out with diagnostics or a checked program: no crash, no exception (an
// InternalError is a loom bug: the CLI would exit 2), no hang, and a round trip that keeps the
// program. The fuzzer itself runs these files as seeds with ASan and UBSan (`make fuzz`).
#include <chrono>
#include <filesystem>

#include "test_util.h"

namespace loom::test {
namespace {

std::vector<std::string> regression_files() {
  std::vector<std::string> out;
  std::filesystem::path dir = std::filesystem::path(source_dir()) / "tests" / "fuzz" / "regressions";
  if (!std::filesystem::is_directory(dir)) return out;
  for (auto& f : std::filesystem::directory_iterator(dir))
    if (f.is_regular_file()) out.push_back(f.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The fuzzer's checks, minus the sanitizers. Returns a description of the first problem, or "".
std::string run_front_end(const std::string& text) {
  // parse + check, as `loom check` does.
  CheckResult r = check_text(text, "regression.loom");
  if (!r.ok && r.diagnostics.empty()) return "the input was rejected without any diagnostic";

  // `loom fmt` on inputs without syntax errors: the canonical text parses back to the same program.
  SourceManager sm;
  DiagnosticEngine diag(sm);
  Program p1 = parse_program(sm, sm.add("regression.loom", text), diag);
  if (diag.has_errors()) return "";
  std::string printed = format_program(p1);
  DiagnosticEngine diag2(sm);
  Program p2 = parse_program(sm, sm.add("formatted.loom", printed), diag2);
  if (diag2.has_errors()) return "the formatted text does not parse:\n" + diag2.format_text(false);
  if (dump_program(p1) != dump_program(p2)) return "the round trip through `loom fmt` changed the program";
  if (format_program(p2) != printed) return "format_program is not idempotent";
  if (r.tree) (void)format_task_tree(*r.tree);
  return "";
}

class FuzzRegression : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzRegression, GivesDiagnosticsNotACrash) {
  std::string path = source_dir() + "/tests/fuzz/regressions/" + GetParam();
  std::string text = read_file(path);
  auto start = std::chrono::steady_clock::now();
  std::string problem;
  try {
    problem = run_front_end(text);
  } catch (const InternalError& e) {
    problem = std::string("internal error (the CLI would exit 2): ") + e.what();
  } catch (const std::exception& e) {
    problem = std::string("exception escaped the front end (the CLI would exit 2): ") + e.what();
  }
  EXPECT_EQ(problem, "") << "reproduce with: build-fuzz/loom_fuzz " << path;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The fuzzer calls an input that takes 10 s (with sanitizers) a hang; without them this is generous.
  EXPECT_LT(seconds, 10.0) << "front end took " << seconds << " s on " << path;
}

INSTANTIATE_TEST_SUITE_P(Regressions, FuzzRegression, ::testing::ValuesIn(regression_files()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string n = i.param;
                           if (n.size() > 5 && n.substr(n.size() - 5) == ".loom") n.resize(n.size() - 5);
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(FuzzRegressions, TheDirectoryIsNotEmpty) { EXPECT_GE(regression_files().size(), 3u); }

}  // namespace
}  // namespace loom::test
