// Error tests: every file under tests/errors/ is a bad program that states the diagnostics it
// expects inline, next to the line they point at:
//
//   // expect-error@+1: unknown task 'gem'
//   gem(C, A, B);
//
// `@+N` / `@-N` give the line relative to the comment (no offset: the comment's own line); the text
// after the colon must appear in the message. `expect-note` and `expect-hint` work the same way for
// notes and hints. Every expected diagnostic must be reported and every reported error expected.
//
// Each file is checked twice more through the built `loom check`, in both diagnostic forms: the
// text form must show every expected error as `file:line:col: error: message`, and the JSON form
// (--diagnostics=json, one object per line) must hold the same expectations, field by field.
#include <filesystem>
#include <regex>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace loom::test {
namespace {

struct Expectation {
  std::string kind;  // error | note | hint
  uint32_t line = 0;
  std::string text;
  bool matched = false;
};

std::vector<Expectation> parse_expectations(const std::string& text) {
  std::vector<Expectation> out;
  std::regex re(R"(//\s*expect-(error|note|hint)(@([+-]\d+))?:\s*(.*)$)");
  std::istringstream in(text);
  std::string line;
  uint32_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::smatch m;
    if (std::regex_search(line, m, re)) {
      int off = m[3].matched ? std::stoi(m[3].str()) : 0;
      std::string t = m[4].str();
      while (!t.empty() && (t.back() == ' ' || t.back() == '\r')) t.pop_back();
      out.push_back({m[1].str(), static_cast<uint32_t>(static_cast<int>(n) + off), t});
    }
  }
  return out;
}

std::vector<std::string> error_files() {
  std::vector<std::string> out;
  for (auto& f : std::filesystem::directory_iterator(source_dir() + "/tests/errors"))
    if (f.path().extension() == ".loom") out.push_back(f.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

class ErrorTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ErrorTest, ReportsExactlyTheExpectedDiagnostics) {
  std::string path = source_dir() + "/tests/errors/" + GetParam();
  std::string text = read_file(path);
  std::vector<Expectation> exp = parse_expectations(text);
  ASSERT_FALSE(exp.empty()) << "error test states no expect-error";

  SourceManager sm;
  uint32_t f = sm.add(GetParam(), text);
  DiagnosticEngine diag(sm);
  Program p = parse_program(sm, f, diag);
  if (!diag.has_errors()) check_program(p, diag);
  std::string shown = diag.format_text(false);

  auto match = [&](const std::string& kind, SourceLoc loc, const std::string& msg) {
    for (Expectation& e : exp)
      if (!e.matched && e.kind == kind && e.line == loc.line && msg.find(e.text) != std::string::npos) {
        e.matched = true;
        return true;
      }
    return false;
  };
  for (const Diagnostic& d : diag.all()) {
    if (d.severity != Severity::Error) continue;
    EXPECT_TRUE(match("error", d.loc, d.message))
        << "unexpected error at line " << d.loc.line << ": " << d.message << "\nall diagnostics:\n" << shown;
    if (!d.hint.empty()) match("hint", d.loc, d.hint);
    for (const Diagnostic& n : d.notes) match("note", n.loc, n.message);
  }
  for (const Expectation& e : exp)
    EXPECT_TRUE(e.matched) << "expected " << e.kind << " at line " << e.line << " containing '" << e.text
                           << "' was not reported\nall diagnostics:\n" << shown;
  // Every diagnostic is located in the file.
  for (const Diagnostic& d : diag.all()) EXPECT_TRUE(d.loc.valid()) << d.message;
}

// The diagnostics the checker reports in-process, the reference for the two CLI forms below.
std::vector<Diagnostic> in_process(const std::string& name, const std::string& text) {
  SourceManager sm;
  uint32_t f = sm.add(name, text);
  DiagnosticEngine diag(sm);
  Program p = parse_program(sm, f, diag);
  if (!diag.has_errors()) check_program(p, diag);
  return diag.all();
}

TEST_P(ErrorTest, CliTextFormShowsEveryErrorWithItsLocation) {
  const std::string path = source_dir() + "/tests/errors/" + GetParam();
  test::Cli r = test::run_loom("check " + path, "");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.out, "");
  for (const Diagnostic& d : in_process(path, read_file(path))) {
    const std::string head = path + ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " +
                             (d.severity == Severity::Error ? "error: " : "warning: ") + d.message + "\n";
    EXPECT_NE(r.err.find(head), std::string::npos) << "missing `" << head << "` in\n" << r.err;
  }
}

TEST_P(ErrorTest, CliJsonFormHoldsTheSameExpectations) {
  const std::string path = source_dir() + "/tests/errors/" + GetParam();
  const std::string text = read_file(path);
  std::vector<Expectation> exp = parse_expectations(text);
  test::Cli r = test::run_loom("check --diagnostics=json " + path, "");
  EXPECT_EQ(r.status, 1) << r.err;
  // One JSON object per line, every field present with its type.
  std::vector<nlohmann::json> diags;
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(j.is_discarded()) << "not a JSON object: " << line;
    ASSERT_TRUE(j.is_object()) << line;
    for (const char* key : {"severity", "file", "message"}) ASSERT_TRUE(j[key].is_string()) << key << " in " << line;
    for (const char* key : {"line", "column"}) ASSERT_TRUE(j[key].is_number_unsigned()) << key << " in " << line;
    ASSERT_TRUE(j["notes"].is_array()) << line;
    if (j.contains("hint")) {
      ASSERT_TRUE(j["hint"].is_string()) << line;
    }
    diags.push_back(std::move(j));
  }
  const std::vector<Diagnostic> ref = in_process(path, text);
  ASSERT_EQ(diags.size(), ref.size()) << r.err;
  auto match = [&](const std::string& kind, const nlohmann::json& j, const std::string& msg) {
    for (Expectation& e : exp)
      if (!e.matched && e.kind == kind && e.line == j["line"].get<uint32_t>() && msg.find(e.text) != std::string::npos) {
        e.matched = true;
        return true;
      }
    return false;
  };
  for (size_t i = 0; i < diags.size(); ++i) {
    const nlohmann::json& j = diags[i];
    EXPECT_EQ(j["file"], path);
    EXPECT_EQ(j["line"], ref[i].loc.line);
    EXPECT_EQ(j["column"], ref[i].loc.col);
    EXPECT_EQ(j["message"], ref[i].message);
    if (j["severity"] != "error") continue;
    EXPECT_TRUE(match("error", j, j["message"].get<std::string>())) << "unexpected error " << j.dump();
    if (j.contains("hint")) match("hint", j, j["hint"].get<std::string>());
    for (const nlohmann::json& n : j["notes"]) {
      EXPECT_EQ(n["severity"], "note");
      match("note", n, n["message"].get<std::string>());
    }
  }
  for (const Expectation& e : exp)
    EXPECT_TRUE(e.matched) << "expected " << e.kind << " at line " << e.line << " containing '" << e.text
                           << "' is not in the JSON diagnostics\n" << r.err;
}

INSTANTIATE_TEST_SUITE_P(Errors, ErrorTest, ::testing::ValuesIn(error_files()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string n = i.param.substr(0, i.param.size() - 5);
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(ErrorTests, ThereAreAtLeastForty) { EXPECT_GE(error_files().size(), 40u); }

}  // namespace
}  // namespace loom::test
