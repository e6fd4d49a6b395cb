// Helpers shared by the back end's tests (codegen_test.cpp: goldens and facts on the generated GEMM;
// codegen_examples_test.cpp: the other examples and what the back end cannot lower yet;
// codegen_cli_test.cpp: the async-copy variant and `loom compile`): the whole pipeline and the
// back end as `loom compile` runs them, example edits, and text helpers over the generated CUDA.
#pragma once

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "codegen/cuda.h"
#include "passes/pipeline.h"
#include "codegen_util.h"
#include "test_util.h"

namespace loom::codegen_test {

using test::check_text;
using test::expect_golden;
using test::read_file;
using test::source_dir;

inline std::string example_path(const std::string& name) { return source_dir() + "/examples/" + name + "/" + name + ".loom"; }

// The whole pipeline and the back end, as `loom compile FILE -o DIR` runs them (the source name in
// the generated comments is the file name, as the CLI gives it).
struct Generated {
  bool checked = false;
  std::string diagnostics;                // the checker's, when it refused the program
  std::optional<codegen::CudaArtifact> artifact;
  std::optional<Diagnostic> error;        // a CompileError from the middle end or the back end
  std::string internal;                   // an InternalError or other exception: always a bug
};

// `default_only`: the default mapping's kernel alone (its specializations dropped).
inline Generated generate(const std::string& name, const std::string& text = "", bool default_only = false) {
  Generated g;
  auto r = check_text(text.empty() ? read_file(example_path(name)) : text, name + ".loom");
  g.checked = r.ok && r.tree.has_value();
  g.diagnostics = r.diagnostics;
  if (!g.checked) return g;
  if (default_only) r.program.specializations.clear();
  try {
    // Every mapping (the default and its specializations), as the CLI does.
    std::vector<MappingUnit> units = mapping_units(r.program, *r.tree);
    std::vector<ir::Function> fs;
    for (const MappingUnit& u : units) fs.push_back(lower_to_event_ir(u.program, u.tree));
    std::vector<codegen::MappingKernel> kernels;
    for (size_t i = 0; i < units.size(); ++i)
      kernels.push_back({&fs[i], units[i].when ? format_condition(*units[i].when) + " [" + name + ".loom:" +
                                                     std::to_string(units[i].when->loc.line) + "]"
                                               : ""});
    g.artifact = codegen::generate_cuda(kernels, name + ".loom");
  } catch (const CompileError& e) {
    g.error = e.diagnostic;
  } catch (const InternalError& e) {
    g.internal = std::string("InternalError: ") + e.what();
  } catch (const std::exception& e) {
    g.internal = std::string("exception: ") + e.what();
  }
  return g;
}

inline codegen::CudaArtifact artifact_of(const std::string& name, bool default_only = false) {
  Generated g = generate(name, "", default_only);
  EXPECT_TRUE(g.checked) << g.diagnostics;
  EXPECT_TRUE(g.internal.empty()) << g.internal;
  EXPECT_FALSE(g.error) << (g.error ? g.error->message : "");
  return g.artifact.value_or(codegen::CudaArtifact{});
}

// examples/<name> with every occurrence of `from` replaced.
inline std::string example_edited(const std::string& name, const std::string& from, const std::string& to) {
  std::string text = read_file(example_path(name));
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  for (; at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

// examples/gemm with every occurrence of `from` (in the default mapping and the specializations)
// replaced.
inline std::string gemm_edited(const std::string& from, const std::string& to) { return example_edited("gemm", from, to); }

// examples/gemm_bias_act with a written condition in place of its when(fastest) candidates: 128 x 64
// tiles with 128-deep K steps when 128 x 256 ones would leave more than half of the SMs idle (the
// mapping the example had before the cost model chose its tiles). *line: the line of that block.
inline std::string bias_act_with_condition(int* line) {
  std::string text = read_file(example_path("gemm_bias_act"));
  text = text.substr(0, text.find("// Other tile shapes"));
  *line = 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  return text +
         "mapping sm_90a when(2 * cdiv(M, 128) * cdiv(N, 256) <= SMS) {\n"
         "  instance host = gemm_bias_act_host on HOST mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(U=128, V=64)\n"
         "      call(gemm_bias_act: block) entry(T=bf16, E=bf16);\n"
         "  instance block = gemm_bias_act_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL, GLOBAL) tune(W=128)\n"
         "      call(gemm: gemm_tile, clear: clear_tile, bias_act: act_tile) warpspecialize pipeline(4)\n"
         "      smem(227KB);\n"
         "  instance gemm_wg = gemm_mma on WARPGROUP mem(NONE, SHARED, SHARED) tune(N_MMA=64)\n"
         "      call(gemm: gemm_warp);\n"
         "  instance gemm_warp = gemm_mma on WARP mem(NONE, SHARED, SHARED) tune(N_MMA=64)\n"
         "      call(gemm: gemm_thread);\n"
         "  instance clear_wg = clear_mma on WARPGROUP mem(NONE) tune(N_MMA=64) call(clear: clear_warp);\n"
         "  instance clear_warp = clear_mma on WARP mem(NONE) tune(N_MMA=64) call(clear: clear_thread);\n"
         "  instance act_wg = bias_act_mma on WARPGROUP mem(GLOBAL, NONE, GLOBAL) tune(N_MMA=64)\n"
         "      call(bias_act: act_warp);\n"
         "  instance act_warp = bias_act_mma on WARP mem(GLOBAL, NONE, GLOBAL) tune(N_MMA=64)\n"
         "      call(bias_act: act_thread);\n"
         "}\n";
}

// ---- text helpers ----------------------------------------------------------------------------------------

// The generated text without the async-copy variants (each mapping's `namespace async_copy` and the
// comment before it): the TMA kernels the facts below are about. Codegen.AsyncCopyVariant* look at
// the variants.
inline const char* const kVariantBegin = "// The async-copy variant: the same kernel";
inline const char* const kVariantEnd = "// The TMA kernel.\n";
inline std::string tma_kernels(std::string cu) {
  for (size_t a = cu.find(kVariantBegin); a != std::string::npos; a = cu.find(kVariantBegin, a)) {
    const size_t b = cu.find(kVariantEnd, a);
    if (b == std::string::npos) break;
    cu.erase(a, b + std::string(kVariantEnd).size() - a);
  }
  return cu;
}
inline codegen::CudaArtifact tma_kernels(codegen::CudaArtifact a) {
  a.cu = tma_kernels(a.cu);
  return a;
}
// The first async-copy variant's text (namespace async_copy { ... }).
inline std::string first_variant(const std::string& cu) {
  const size_t a = cu.find("namespace async_copy {");
  if (a == std::string::npos) return "";
  return cu.substr(a, cu.find("}  // namespace async_copy", a) - a);
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

inline int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

inline bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The text from the line containing `from` up to (not including) the line containing `to`.
inline std::string between(const std::string& text, const std::string& from, const std::string& to) {
  size_t a = text.find(from);
  if (a == std::string::npos) return "";
  a = text.rfind('\n', a) + 1;
  size_t b = text.find(to, a + from.size());
  if (b == std::string::npos) return "";
  b = text.rfind('\n', b) + 1;
  return text.substr(a, b - a);
}

// The brace-balanced `for (...) { ... }` that starts at `at`, from its header to its closing brace.
inline std::string loop_at(const std::string& text, size_t at) {
  if (at == std::string::npos) return "";
  const size_t close = test::closing_brace(text, text.find('{', at));
  return close == std::string::npos ? "" : text.substr(at, close + 1 - at);
}

// The pipelined K loop of a role's code: the generated comment names the `srange` and says
// "pipelined N deep"; the loop is the next `for`.
inline std::string k_loop(const std::string& section) {
  size_t c = section.find("  pipelined 3 deep");
  if (c == std::string::npos) return "";
  return loop_at(section, section.find("for (", c));
}

// The names of the barriers whose declaration comment says they complete TMA copies:
//   uint64_t* const bar_x = reinterpret_cast<uint64_t*>(smem + 147488);  // [3] TMA %Ap.1 -> %A.1 landed
inline std::vector<std::string> tma_barriers(const std::string& cu) {
  std::vector<std::string> out;
  for (const std::string& l : lines_of(cu)) {
    const std::string decl = "uint64_t* const ";
    size_t d = l.find(decl);
    if (d == std::string::npos || l.find("] TMA ") == std::string::npos) continue;
    size_t b = d + decl.size();
    out.push_back(l.substr(b, l.find(' ', b) - b));
  }
  return out;
}

}  // namespace loom::codegen_test
