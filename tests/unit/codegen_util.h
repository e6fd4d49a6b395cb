// Helpers shared by the back-end option tests (splitk_test.cpp, streamk_test.cpp, alternate_test.cpp,
// kteams_test.cpp, schedule_optimal_test.cpp): an example's text, a checked text edit, counting
// occurrences, every mapping of a program through the middle end and the CUDA back end, as `loom
// compile` does, and the CPU executor against the sequential reference.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "codegen/cuda.h"
#include "exec/executor.h"
#include "exec/inputs.h"
#include "exec/reference.h"
#include "passes/pipeline.h"
#include "test_util.h"

namespace loom::test {

// examples/<name>/<name>.loom, every mapping included.
inline std::string example_text(const std::string& name) {
  return read_file(source_dir() + "/examples/" + name + "/" + name + ".loom");
}

// `text` with the first `from` replaced by `to`; a test failure when `from` does not occur.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Every occurrence replaced (at least one expected).
inline std::string replaced_all(std::string text, const std::string& from, const std::string& to) {
  EXPECT_NE(text.find(from), std::string::npos) << from;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

// The position of the brace that closes the one at `open` in `s` (npos when it is not closed).
inline size_t closing_brace(const std::string& s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '{') ++depth;
    if (s[i] == '}' && --depth == 0) return i;
  }
  return std::string::npos;
}

// How often `needle` occurs in `text` (overlapping occurrences counted).
inline int count_of(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// examples/flash_attention_3 with `pingpong`: a program the CUDA back end refuses with a located
// error (pingpong.cpp: turns on a loop that carries its scores), for the CLI's failure paths.
inline std::string unsupported_program_text() {
  return replaced(example_text("flash_attention_3"), "warpspecialize pipeline(2) smem(227KB);",
                  "warpspecialize pipeline(2) pingpong smem(227KB);");
}

// That program in a file of its own (one per test process), named fa3_pingpong.loom.
inline std::string unsupported_program_file() {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("loom_unsupported_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path path = dir / "fa3_pingpong.loom";
  std::ofstream(path) << unsupported_program_text();
  return path.string();
}

struct CompiledMappings {
  std::optional<codegen::CudaArtifact> artifact;
  std::optional<Diagnostic> error;  // a CompileError from the middle end or the back end
  std::string ir;                   // the IR of the last mapping
};

// Every mapping of the program through the middle end and the back end, as `loom compile` does.
inline CompiledMappings compile_mappings(const std::string& text, const std::string& name) {
  CompiledMappings out;
  auto r = check_text(text, name + ".loom");
  EXPECT_TRUE(r.ok && r.tree.has_value()) << r.diagnostics;
  if (!r.ok || !r.tree) return out;
  try {
    std::vector<MappingUnit> units = mapping_units(r.program, *r.tree);
    std::vector<ir::Function> fs;
    for (const MappingUnit& u : units) fs.push_back(lower_to_event_ir(u.program, u.tree));
    out.ir = ir::print(fs.back());
    std::vector<codegen::MappingKernel> kernels;
    for (size_t i = 0; i < units.size(); ++i)
      kernels.push_back({&fs[i], units[i].when ? format_condition(*units[i].when) : ""});
    out.artifact = codegen::generate_cuda(kernels, name + ".loom");
  } catch (const CompileError& e) {
    out.error = e.diagnostic;
  }
  return out;
}

// The CPU executor (random legal orders, race check) runs f, checked program r's event IR, at
// `sizes` to the sequential reference's results, for seeds 1 .. seeds.
inline void expect_executor_matches(const CheckResult& r, const ir::Function& f, const std::map<std::string, int64_t>& sizes,
                                    uint64_t seeds) {
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    exec::Args in = exec::make_inputs(r.program, *r.tree, sizes, seed);
    exec::Args ref = exec::copy_args(in);
    exec::run_reference(r.program, *r.tree, ref);
    exec::ExecResult res = exec::execute(f, exec::exec_args(in), seed, {});
    ASSERT_TRUE(res.ok) << "seed " << seed << ": " << res.error.substr(0, 400);
    auto mm = exec::compare_outputs(ref, in);
    EXPECT_FALSE(mm) << "seed " << seed << ": " << mm->describe();
  }
}

}  // namespace loom::test
