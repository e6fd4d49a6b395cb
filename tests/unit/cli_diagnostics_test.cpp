// `--diagnostics=json` on every subcommand of the built `loom` (docs/cli.md, "Diagnostics"): one
// JSON object per line on stderr, {severity, file, line, column, message, hint?, notes}, for errors
// that belong to a place in a program and for those that do not (command line, files, nvcc, the
// scheduler), and nothing at all on success. The text form stays the default. Program errors in
// both forms are covered file by file in error_test.cpp.
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen_util.h"
#include "test_util.h"

namespace loom {
namespace {

using test::run_loom;
using test::source_dir;

std::string example(const std::string& name) { return source_dir() + "/examples/" + name + "/" + name + ".loom"; }

// Every line of `err` as JSON; fails the test on a line that is not a diagnostic object.
std::vector<nlohmann::json> json_lines(const std::string& err) {
  std::vector<nlohmann::json> out;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    EXPECT_TRUE(j.is_object()) << "not a JSON diagnostic: " << line;
    if (!j.is_object()) continue;
    for (const char* key : {"severity", "file", "line", "column", "message", "notes"})
      EXPECT_TRUE(j.contains(key)) << key << " missing in " << line;
    out.push_back(std::move(j));
  }
  return out;
}

TEST(CliDiagnostics, SuccessPrintsNothingOnStderr) {
  for (const char* cmd : {"check", "fmt --check", "compile --emit=tree"}) {
    test::Cli r = run_loom(std::string(cmd) + " --diagnostics=json " + example("gemm"), "");
    EXPECT_EQ(r.status, 0) << cmd << ": " << r.err;
    EXPECT_EQ(r.err, "") << cmd;
  }
}

TEST(CliDiagnostics, UsageErrorsAreDiagnostics) {
  for (const char* args : {"chek x.loom", "check --bogus x.loom", "check", "compile a.loom b.loom", "run --seeds 0 x.loom"}) {
    test::Cli r = run_loom(std::string(args) + " --diagnostics=json", "");
    EXPECT_EQ(r.status, 1) << args;
    auto d = json_lines(r.err);
    ASSERT_EQ(d.size(), 1u) << args << ": " << r.err;  // no usage text in the JSON form
    EXPECT_EQ(d[0]["severity"], "error");
    EXPECT_EQ(d[0]["file"], "loom");
    EXPECT_EQ(d[0]["line"], 0);
    // The text form: `loom: error: ...` and the usage.
    test::Cli t = run_loom(args, "");
    EXPECT_EQ(t.status, 1);
    EXPECT_EQ(t.err.rfind("loom: error: " + d[0]["message"].get<std::string>() + "\n", 0), 0u) << t.err;
    EXPECT_NE(t.err.find("usage: loom"), std::string::npos);
  }
}

TEST(CliDiagnostics, UnreadableFile) {
  test::Cli r = run_loom("check --diagnostics=json /nonexistent/prog.loom", "");
  EXPECT_EQ(r.status, 1);
  auto d = json_lines(r.err);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0]["file"], "/nonexistent/prog.loom");
  EXPECT_EQ(d[0]["message"], "cannot read the file");
  EXPECT_TRUE(d[0].contains("hint"));
  test::Cli t = run_loom("check /nonexistent/prog.loom", "");
  EXPECT_EQ(t.err.rfind("/nonexistent/prog.loom: error: cannot read the file\n", 0), 0u) << t.err;
}

TEST(CliDiagnostics, FmtCheckOfANonCanonicalFile) {
  const std::filesystem::path p = std::filesystem::path(testing::TempDir()) / ("loom_noncanon_" + std::to_string(getpid()) + ".loom");
  std::ofstream(p) << test::read_file(example("gemm")) << "\n\n\n";
  test::Cli r = run_loom("fmt --check --diagnostics=json " + p.string(), "");
  EXPECT_EQ(r.status, 1);
  auto d = json_lines(r.err);
  ASSERT_EQ(d.size(), 1u) << r.err;
  EXPECT_EQ(d[0]["file"], p.string());
  EXPECT_EQ(d[0]["message"], "not in canonical form");
  EXPECT_NE(d[0]["hint"].get<std::string>().find("loom fmt -i"), std::string::npos);
  std::filesystem::remove(p);
}

TEST(CliDiagnostics, ProgramErrorFromStdinAndFromTheBackEnd) {
  // A checker error read from stdin names <stdin>.
  test::Cli r = run_loom("check --diagnostics=json - < " + source_dir() + "/tests/errors/unknown_task.loom", "");
  EXPECT_EQ(r.status, 1);
  auto d = json_lines(r.err);
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d[0]["file"], "<stdin>");
  EXPECT_GT(d[0]["line"].get<int>(), 0);
  EXPECT_GT(d[0]["column"].get<int>(), 0);
  // A program the CUDA back end cannot lower: a located error from a pass, on every emit kind.
  const std::string bad = test::unsupported_program_file();
  for (const char* emit : {"--emit=cuda", "--emit=header", "--emit=torch"}) {
    test::Cli c = run_loom("compile " + bad + " " + emit + " --diagnostics=json", "");
    EXPECT_EQ(c.status, 1) << emit;
    auto e = json_lines(c.err);
    ASSERT_EQ(e.size(), 1u) << emit << ": " << c.err;
    EXPECT_EQ(e[0]["file"], bad);
    EXPECT_GT(e[0]["line"].get<int>(), 0);
    EXPECT_NE(e[0]["message"].get<std::string>().find("the CUDA back end cannot lower"), std::string::npos);
  }
}

TEST(CliDiagnostics, RunErrors) {
  test::Cli r = run_loom("run --cpu --diagnostics=json --size M=oops " + example("gemm"), "");
  EXPECT_EQ(r.status, 1);
  auto d = json_lines(r.err);
  ASSERT_EQ(d.size(), 1u) << r.err;
  EXPECT_NE(d[0]["message"].get<std::string>().find("--size"), std::string::npos);
}

// Sizes past what the CPU executor can hold are a user error that says so (they were an internal
// error, std::bad_alloc from the allocator), for .loom programs and .tx files alike.
TEST(CliDiagnostics, RunAtSizesTooLargeForTheCpu) {
  test::Cli r = run_loom("run --cpu --size M=3000000,N=3000000,K=5 " + example("gemm"), "");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("error: the tensors at these sizes hold more than the CPU executor's 67108864 elements (the largest: C: 3000000 x 3000000)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("internal"), std::string::npos) << r.err;
  test::Cli t = run_loom("run --cpu --size M=2000000000,N=5,K=5 " + test::source_dir() + "/examples/tx/gemm.tx", "");
  EXPECT_EQ(t.status, 1) << t.err;
  EXPECT_NE(t.err.find("more than the CPU executor's 67108864 elements"), std::string::npos) << t.err;
  EXPECT_EQ(t.err.find("internal"), std::string::npos) << t.err;
  test::Cli big = run_loom("run --cpu --size M=99999999999,N=5,K=5 " + test::source_dir() + "/examples/tx/gemm.tx", "");
  EXPECT_NE(big.err.find("error: size M needs a positive integer up to 2^31, found '99999999999'"), std::string::npos) << big.err;
}

// `loom run --cpu` runs every mapping whose condition holds at --size (SMS: the machine model's 132)
// and names the ones it skips: flash_attention_2's when(D <= 64) mapping splits D into 64-wide
// tiles, so it cannot compute D = 128, and the launcher never picks it there; its when(D > 128)
// mapping (HD = 256) runs only above 128, where the default's 128-wide tiles leave columns unwritten
// and each mapping is compared with the reference under its own tiles.
TEST(CliRun, SpecializationsRunOnlyWhereTheirConditionHolds) {
  test::Cli wide = run_loom("run --cpu --size BH=1,M=65,N=70,D=128 " + example("flash_attention_2"), "");
  EXPECT_EQ(wide.status, 0) << wide.out << wide.err;
  EXPECT_NE(wide.out.find("match (1 of 3 mappings; not run, their condition does not hold at --size: when(D <= 64) "
                          "[flash_attention_2.loom:"),
            std::string::npos)
      << wide.out;
  EXPECT_NE(wide.out.find("when(D > 128) [flash_attention_2.loom:"), std::string::npos) << wide.out;
  test::Cli narrow = run_loom("run --cpu --size BH=1,M=65,N=70,D=64 " + example("flash_attention_2"), "");
  EXPECT_EQ(narrow.status, 0) << narrow.out << narrow.err;
  EXPECT_NE(narrow.out.find("match (2 of 3 mappings; not run, their condition does not hold at --size: when(D > 128)"),
            std::string::npos)
      << narrow.out;
  test::Cli head256 = run_loom("run --cpu --size BH=1,M=65,N=70,D=256 " + example("flash_attention_2"), "");
  EXPECT_EQ(head256.status, 0) << head256.out << head256.err;
  EXPECT_NE(head256.out.find("match (2 of 3 mappings; not run, their condition does not hold at --size: when(D <= 64)"),
            std::string::npos)
      << head256.out;
}

TEST(CliDiagnostics, ScheduleErrors) {
  const std::filesystem::path p = std::filesystem::path(testing::TempDir()) / ("loom_bad_graph_" + std::to_string(getpid()) + ".json");
  std::ofstream(p) << "{\n  \"nodes\": [\n    oops\n";
  test::Cli r = run_loom("schedule --diagnostics=json " + p.string(), "");
  EXPECT_EQ(r.status, 1);
  auto d = json_lines(r.err);
  ASSERT_EQ(d.size(), 1u) << r.err;
  EXPECT_EQ(d[0]["file"], p.string());
  EXPECT_EQ(d[0]["line"], 3);
  EXPECT_GT(d[0]["column"].get<int>(), 0);
  // A bad flag: a command-line diagnostic, and no usage text in the JSON form.
  test::Cli f = run_loom("schedule --bogus --diagnostics=json " + p.string(), "");
  EXPECT_EQ(f.status, 1);
  auto g = json_lines(f.err);
  ASSERT_EQ(g.size(), 1u) << f.err;
  EXPECT_EQ(g[0]["file"], "loom schedule");
  // The text form is unchanged.
  test::Cli t = run_loom("schedule " + p.string(), "");
  EXPECT_EQ(t.err.rfind(p.string() + ":3:", 0), 0u) << t.err;
  std::filesystem::remove(p);
}

}  // namespace
}  // namespace loom
