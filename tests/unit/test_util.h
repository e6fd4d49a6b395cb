// Helpers shared by the unit tests: reading files, golden comparison with UPDATE_GOLDEN=1, and
// running parse + check on a string.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/check.h"
#include "loom/frontend.h"

namespace loom::test {

inline std::string source_dir() { return LOOM_SOURCE_DIR; }

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Every examples/<name>/<name>.loom, sorted.
inline std::vector<std::filesystem::path> example_files() {
  std::vector<std::filesystem::path> out;
  for (auto& dir : std::filesystem::directory_iterator(source_dir() + "/examples"))
    if (dir.is_directory())
      for (auto& f : std::filesystem::directory_iterator(dir.path()))
        if (f.path().extension() == ".loom") out.push_back(f.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Compares `actual` with the golden file at `rel` (relative to tests/golden/). With UPDATE_GOLDEN=1
// in the environment the golden is (re)written instead and the check passes.
inline void expect_golden(const std::string& rel, const std::string& actual) {
  std::filesystem::path p = std::filesystem::path(source_dir()) / "tests" / "golden" / rel;
  const char* update = std::getenv("UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << actual;
    return;
  }
  if (!std::filesystem::exists(p)) {
    ADD_FAILURE() << "golden file " << p << " is missing; run `UPDATE_GOLDEN=1 make test` to create it";
    return;
  }
  EXPECT_EQ(read_file(p), actual) << "output differs from golden " << p
                                  << "; if the change is intended run `UPDATE_GOLDEN=1 make test`";
}

// Parses and checks `text`; returns the diagnostics as text (no source lines) and the tree.
struct CheckResult {
  std::string diagnostics;
  bool ok = false;
  std::optional<TaskTree> tree;
  Program program;
};

inline CheckResult check_text(const std::string& text, const std::string& name = "test.loom") {
  SourceManager sm;
  uint32_t f = sm.add(name, text);
  DiagnosticEngine diag(sm);
  CheckResult r;
  r.program = parse_program(sm, f, diag);
  if (!diag.has_errors()) r.tree = check_program(r.program, diag);
  r.diagnostics = diag.format_text(false);
  r.ok = !diag.has_errors();
  return r;
}

}  // namespace loom::test
