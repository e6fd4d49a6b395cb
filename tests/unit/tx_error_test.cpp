// Error tests for tensor expressions: every file under tests/errors/tx/ is a bad program stating the
// diagnostics it expects inline, like tests/errors/*.loom (error_test.cpp):
//
//   // expect-error@+1: non-affine index: i * j multiplies two non-constant expressions
//   B[i, j] = A[i * j];
//
// Every expected error must be reported on its line and every reported error expected. Each file
// also goes through the built `loom check`, whose output must show `file:line:col: error: message`.
#include <regex>

#include "tx_test_util.h"

namespace loom::test {
namespace {

struct Expectation {
  uint32_t line = 0;
  std::string text;
  bool matched = false;
};

std::vector<Expectation> expectations(const std::string& text) {
  std::vector<Expectation> out;
  std::regex re(R"(//\s*expect-error(@([+-]\d+))?:\s*(.*)$)");
  std::istringstream in(text);
  std::string line;
  uint32_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::smatch m;
    if (std::regex_search(line, m, re)) {
      const int off = m[2].matched ? std::stoi(m[2].str()) : 0;
      std::string t = m[3].str();
      while (!t.empty() && (t.back() == ' ' || t.back() == '\r')) t.pop_back();
      out.push_back({static_cast<uint32_t>(static_cast<int>(n) + off), t});
    }
  }
  return out;
}

std::vector<std::string> tx_error_files() {
  std::vector<std::string> out;
  for (auto& f : std::filesystem::directory_iterator(source_dir() + "/tests/errors/tx"))
    if (f.path().extension() == ".tx") out.push_back(f.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

class TxErrorTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TxErrorTest, ReportsExactlyTheExpectedErrors) {
  const std::string path = source_dir() + "/tests/errors/tx/" + GetParam();
  const std::string text = read_file(path);
  std::vector<Expectation> exp = expectations(text);
  ASSERT_FALSE(exp.empty()) << "error test states no expect-error";
  auto c = compile_tx(text, GetParam());
  for (const Diagnostic& d : c->diag->all()) {
    if (d.severity != Severity::Error) continue;
    bool found = false;
    for (Expectation& e : exp)
      if (!e.matched && e.line == d.loc.line && d.message.find(e.text) != std::string::npos) found = e.matched = true;
    EXPECT_TRUE(found) << "unexpected error at line " << d.loc.line << ": " << d.message;
  }
  for (const Expectation& e : exp) EXPECT_TRUE(e.matched) << "expected at line " << e.line << ": " << e.text << "\ngot:\n" << c->errors();
}

TEST_P(TxErrorTest, CliPrintsFileLineColumn) {
  const std::string path = "tests/errors/tx/" + GetParam();
  std::vector<Expectation> exp = expectations(read_file(source_dir() + "/" + path));
  const std::string cmd = std::string(LOOM_BINARY) + " check " + path + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = pclose(p);
  EXPECT_EQ(WEXITSTATUS(status), 1) << out;
  for (const Expectation& e : exp) {
    const std::string prefix = path + ":" + std::to_string(e.line) + ":";
    const size_t at = out.find(prefix);
    ASSERT_NE(at, std::string::npos) << "no diagnostic at " << prefix << " in:\n" << out;
    EXPECT_NE(out.find(": error: ", at), std::string::npos) << out;
    EXPECT_NE(out.find(e.text), std::string::npos) << out;
  }
}

INSTANTIATE_TEST_SUITE_P(Files, TxErrorTest, ::testing::ValuesIn(tx_error_files()),
                         [](const auto& info) {
                           std::string n = info.param.substr(0, info.param.size() - 3);
                           for (char& ch : n) if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace loom::test
