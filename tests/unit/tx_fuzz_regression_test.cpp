// Fuzz regressions of the `.tx` front end: every file under tests/fuzz/regressions/tx/ is an input
// that once broke the `.tx` fuzz target (tests/fuzz/fuzz_tx.cpp, docs/fuzzing.md), or a hand-made
// nasty input (huge extents, deep nesting, garbage, index arithmetic near int64's limits). Each one
// goes through the fuzz target's own checks (tests/fuzz/tx_front_end.h: parse, `loom fmt`, check,
// ISL analysis, recognition, lowering, the lowered program checked) and must come out with
// diagnostics or lowered programs: no crash, no exception, no broken contract, no hang.
#include <chrono>
#include <filesystem>

#include "../fuzz/tx_front_end.h"
#include "test_util.h"

namespace loom::test {
namespace {

std::vector<std::string> tx_regression_files() {
  std::vector<std::string> out;
  std::filesystem::path dir = std::filesystem::path(source_dir()) / "tests" / "fuzz" / "regressions" / "tx";
  if (!std::filesystem::is_directory(dir)) return out;
  for (auto& f : std::filesystem::directory_iterator(dir))
    if (f.is_regular_file()) out.push_back(f.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

class TxFuzzRegression : public ::testing::TestWithParam<std::string> {};

TEST_P(TxFuzzRegression, GivesDiagnosticsNotACrash) {
  const std::string path = source_dir() + "/tests/fuzz/regressions/tx/" + GetParam();
  const std::string text = read_file(path);
  const auto start = std::chrono::steady_clock::now();
  std::string problem;
  try {
    problem = fuzz::tx_front_end_problem(text);
  } catch (const InternalError& e) {
    problem = std::string("internal error (the CLI would exit 2): ") + e.what();
  } catch (const std::exception& e) {
    problem = std::string("exception escaped the tx front end (the CLI would exit 2): ") + e.what();
  }
  EXPECT_EQ(problem, "") << "reproduce with: build-fuzz/loom_fuzz_tx " << path;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0) << "the tx front end took " << seconds << " s on " << path;
}

INSTANTIATE_TEST_SUITE_P(Regressions, TxFuzzRegression, ::testing::ValuesIn(tx_regression_files()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string n = i.param;
                           if (n.size() > 3 && n.substr(n.size() - 3) == ".tx") n.resize(n.size() - 3);
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(TxFuzzRegressions, TheDirectoryIsNotEmpty) { EXPECT_GE(tx_regression_files().size(), 3u); }

}  // namespace
}  // namespace loom::test
