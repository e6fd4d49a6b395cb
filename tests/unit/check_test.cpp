// Checker tests beyond the error files: every example checks clean and its instantiated task tree
// matches a golden file (tests/golden/tree/<example>.txt; UPDATE_GOLDEN=1 regenerates), facts about
// the GEMM tree (Fig. 5), JSON diagnostics, and that mapping choices are honoured.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace loom::test {
namespace {

TEST(Check, EveryExampleChecksCleanAndMatchesItsTreeGolden) {
  auto files = example_files();
  ASSERT_GE(files.size(), 6u);
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    CheckResult r = check_text(read_file(f), f.filename().string());
    EXPECT_TRUE(r.ok) << r.diagnostics;
    ASSERT_TRUE(r.tree.has_value());
    expect_golden("tree/" + f.stem().string() + ".txt", format_task_tree(*r.tree));
  }
}

TEST(Check, GemmTreeFollowsFigure5) {
  CheckResult r = check_text(read_file(source_dir() + "/examples/gemm/gemm.loom"));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  const TaskTree& t = *r.tree;
  EXPECT_EQ(t.machine->target, "sm_90a");
  // host -> block -> tile (block) -> warpgroup -> warp -> thread for the main GEMM.
  std::vector<ProcKind> path;
  std::function<bool(int)> find = [&](int id) {
    const TreeNode& n = t.nodes[id];
    path.push_back(n.proc);
    if (n.instance == "gemm_thread") return true;
    for (int c : n.children)
      if (find(c)) return true;
    path.pop_back();
    return false;
  };
  ASSERT_TRUE(find(0));
  EXPECT_EQ(path, (std::vector<ProcKind>{ProcKind::Host, ProcKind::Block, ProcKind::Block, ProcKind::Warpgroup,
                                         ProcKind::Warp, ProcKind::Thread}));
  // The thread's accumulator piece: 128x256 tile, two warpgroups -> 64x256 each -> 2 x 64 per thread.
  for (const TreeNode& n : t.nodes)
    if (n.instance == "gemm_thread") {
      ASSERT_EQ(n.args.size(), 3u);
      EXPECT_EQ(n.args[0].dtype, DType::F32);
      EXPECT_EQ(n.args[0].mem, MemKind::Register);
      EXPECT_EQ(n.args[0].extents, (std::vector<std::optional<int64_t>>{2, 64}));
      EXPECT_EQ(n.args[1].dtype, DType::BF16);
      EXPECT_EQ(n.args[1].mem, MemKind::Shared);
    }
}

TEST(Check, TileSizesComeFromTheMapping) {
  std::string text = read_file(source_dir() + "/examples/gemm/gemm.loom");
  // Same program, smaller block tile: the thread's accumulator shrinks accordingly.
  auto pos = text.find("tune(U=128, V=256)");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, 18, "tune(U=128, V=128)");
  for (const char* from : {"N_MMA=256"}) {
    for (size_t p = text.find(from); p != std::string::npos; p = text.find(from, p)) text.replace(p, 9, "N_MMA=128");
  }
  CheckResult r = check_text(text);
  ASSERT_TRUE(r.ok) << r.diagnostics;
  for (const TreeNode& n : r.tree->nodes)
    if (n.instance == "gemm_thread") {
      EXPECT_EQ(n.args[0].extents, (std::vector<std::optional<int64_t>>{2, 32}));
    }
}

TEST(Check, JsonDiagnosticsCarryLocationNotesAndHints) {
  const char* src =
      "task t(C: rw f32[M, N]);\n"
      "task u(C: r f32[M, N]);\n"
      "variant v of u(C): inner {\n"
      "  t(C);\n"
      "}\n";
  SourceManager sm;
  DiagnosticEngine diag(sm);
  Program p = parse_program(sm, sm.add("x.loom", src), diag);
  check_program(p, diag);
  ASSERT_TRUE(diag.has_errors());
  // JSON Lines: one object per diagnostic and line.
  std::vector<nlohmann::json> j;
  std::istringstream lines(diag.format_json());
  for (std::string line; std::getline(lines, line);) j.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(j.size(), static_cast<size_t>(diag.all().size()));
  EXPECT_EQ(j[0]["severity"], "error");
  EXPECT_EQ(j[0]["file"], "x.loom");
  EXPECT_EQ(j[0]["line"], 4);
  EXPECT_EQ(j[0]["column"], 5);
  EXPECT_NE(j[0]["message"].get<std::string>().find("privilege escalation"), std::string::npos);
  EXPECT_TRUE(j[0].contains("hint"));
  ASSERT_FALSE(j[0]["notes"].empty());
  EXPECT_EQ(j[0]["notes"][0]["line"], 1);
}

TEST(Check, TextDiagnosticsShowTheSourceLineAndCaret) {
  const char* src = "task t(C: rw f32[M, N]);\nvariant v of t(C): inner {\n  gemm(C);\n}\n";
  SourceManager sm;
  DiagnosticEngine diag(sm);
  Program p = parse_program(sm, sm.add("y.loom", src), diag);
  check_program(p, diag);
  std::string text = diag.format_text();
  EXPECT_NE(text.find("y.loom:3:3: error: unknown task 'gemm'\n    gemm(C);\n    ^\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace loom::test
