// Property: no mapping crashes the compiler (the quality bar's "no input crashes loom", for the
// middle and back end, which the front end's fuzzer, docs/fuzzing.md, does not reach). Each case
// takes an example, keeps its default mapping and at most one specialization, and mutates one to
// three clauses of it the way a user editing a mapping would: a tunable's value, a ring depth, a
// block option added (warpspecialize, pingpong, pingpong(double_buffer), splitk(S), multicast(S[, T]), alternate(T),
// kteams(T), streamk, smem, regs, schedule(optimal)) or removed, a memory of mem(...), a swizzle, the entry's
// element types, an instance's variant swapped for a sibling (gemm_tile <-> gemm_tile_t). Then the
// whole pipeline runs as `loom compile` runs it (every mapping lowered, the CUDA generated). It
// must either compile or stop with a located user diagnostic (file:line:col): an InternalError,
// any other exception or an unlocated diagnostic fails the case, printed with its seed and the
// mutated mapping lines. Rerun one case with LOOM_MAPPING_MUTATION_SEED=S; LOOM_MAPPING_MUTATION_CASES=N
// runs N cases (default 200: about 3 s here; 3,000 ran clean in 45 s on 2026-12-05).
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "codegen_test_util.h"

namespace loom::codegen_test {
namespace {

const std::vector<std::string> kExamples = {"gemm",          "batched_gemm",  "dual_gemm",         "relu_gemm",
                                            "gemm_bias_act", "gemm_residual", "gemm_reduce",       "gemm_reduce_shared",
                                            "add_gemm",      "flash_attention_2", "flash_attention_3", "flash_attention_3_causal"};

const std::vector<std::string> kBlockOptions = {
    "warpspecialize", "nowarpspecialize", "pingpong",     "splitk(2)",        "splitk(3)",     "splitk(4)",
    "splitk(8)",      "multicast(2)",     "multicast(2, 2)", "multicast(4, 2)", "multicast(1, 2)", "alternate(2)",
    "alternate(3)",   "streamk",          "pipeline(1)",  "pipeline(2)",      "pipeline(5)",   "pipeline(9)",
    "smem(100KB)",    "smem(227KB)",      "regs(40, 232)", "regs(24, 240)",   "schedule(optimal)",
    "pingpong(double_buffer)", "kteams(2)",    "kteams(4)"};

const std::vector<int> kValues = {1, 2, 3, 4, 8, 16, 24, 32, 40, 48, 64, 72, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 320, 512};

template <class T>
const T& pick(std::mt19937_64& r, const std::vector<T>& v) {
  return v[r() % v.size()];
}

// The program's text with one to three mapping clauses mutated; `changed` gets the mutated lines.
std::string mutate(std::mt19937_64& r, const std::string& text, std::string& changed) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::vector<std::string> variants;
  const std::regex variant_decl(R"(^variant (\w+) )");
  for (const std::string& l : lines)
    if (std::smatch m; std::regex_search(l, m, variant_decl)) variants.push_back(m[1]);
  std::vector<size_t> clauses;
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].find("instance ") != std::string::npos || lines[i].find("pipeline(") != std::string::npos ||
        lines[i].find("warpspecialize") != std::string::npos)
      clauses.push_back(i);
  if (clauses.empty()) return text;
  const int edits = 1 + static_cast<int>(r() % 3);
  for (int e = 0; e < edits; ++e) {
    std::string& l = lines[pick(r, clauses)];
    const int kind = static_cast<int>(r() % 8);
    std::smatch m;
    if (kind == 0 && std::regex_search(l, m, std::regex(R"(mem\(([^)]*)\))"))) {
      std::vector<std::string> mems;
      std::istringstream ms(m[1].str());
      for (std::string x; std::getline(ms, x, ',');) mems.push_back(x.substr(x.find_first_not_of(' ')));
      mems[r() % mems.size()] = pick(r, std::vector<std::string>{"GLOBAL", "SHARED", "REGISTER", "NONE"});
      std::string joined;
      for (const std::string& x : mems) joined += (joined.empty() ? "" : ", ") + x;
      l = m.prefix().str() + "mem(" + joined + ")" + m.suffix().str();
    } else if (kind == 1 && std::regex_search(l, m, std::regex(R"(swizzle\d+)"))) {
      l = m.prefix().str() + pick(r, std::vector<std::string>{"swizzle32", "swizzle64", "swizzle128", ""}) + m.suffix().str();
    } else if (kind == 2 && std::regex_search(l, m, std::regex(R"(entry\([^)]*\))"))) {
      l = m.prefix().str() +
          pick(r, std::vector<std::string>{"entry(T=f32, E=bf16)", "entry(T=f16, E=f16)", "entry(T=bf16, E=f16)", "entry(T=f32, E=f32)"}) +
          m.suffix().str();
    } else if (kind == 3 && std::regex_search(l, m, std::regex(R"(= (\w+) on )"))) {
      const std::string v = m[1];
      const std::string stem = v.size() > 2 && v.substr(v.size() - 2) == "_t" ? v.substr(0, v.size() - 2) : v;
      std::vector<std::string> siblings;
      for (const std::string& x : variants)
        if (x != v && (x == stem || x == stem + "_t")) siblings.push_back(x);
      if (!siblings.empty()) l = m.prefix().str() + "= " + pick(r, siblings) + " on " + m.suffix().str();
    } else if (kind <= 4 && std::regex_search(l, m, std::regex(R"(\b(\w+)=(\d+)\b)"))) {
      l = m.prefix().str() + m[1].str() + "=" + std::to_string(pick(r, kValues)) + m.suffix().str();
    } else if (kind == 5 && std::regex_search(l, m, std::regex(R"(pipeline\(\d+\))"))) {
      l = m.prefix().str() + "pipeline(" + std::to_string(1 + r() % 10) + ")" + m.suffix().str();
    } else if (kind == 6 && !l.empty() && l.back() == ';') {
      l = l.substr(0, l.size() - 1) + " " + pick(r, kBlockOptions) + ";";
    } else {
      for (const char* o : {R"(\bwarpspecialize\b)", R"(\bpingpong(\(double_buffer\))?)", R"(splitk\(\d\))", R"(multicast\([\d, ]+\))", R"(alternate\(\d\))", R"(kteams\(\d\))"})
        if (std::regex_search(l, m, std::regex(o))) {
          l = m.prefix().str() + m.suffix().str();
          break;
        }
    }
    changed += "    " + l + "\n";
  }
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// The example's text cut to its default mapping and, half the time, one specialization.
std::string some_mappings(std::mt19937_64& r, const std::string& text) {
  std::vector<size_t> starts;
  for (size_t at = text.find("\nmapping "); at != std::string::npos; at = text.find("\nmapping ", at + 1)) starts.push_back(at);
  if (starts.size() < 2) return text;
  auto cut = [&](size_t i) { return text.substr(starts[i], (i + 1 < starts.size() ? starts[i + 1] : text.size()) - starts[i]); };
  std::string out = text.substr(0, starts[1]);
  if (r() % 2) out += cut(1 + r() % (starts.size() - 1));
  return out;
}

TEST(MappingMutationProperty, NoMappingCrashesTheCompiler) {
  const char* n = std::getenv("LOOM_MAPPING_MUTATION_CASES");
  const std::vector<uint64_t> seeds = test::property_seeds("LOOM_MAPPING_MUTATION_SEED", 20261205, n ? std::atoi(n) : 200);
  int compiled = 0, refused = 0;
  for (const uint64_t seed : seeds) {
    std::mt19937_64 r(seed);
    const std::string& name = pick(r, kExamples);
    std::string changed;
    const std::string text = mutate(r, some_mappings(r, read_file(example_path(name))), changed);
    SCOPED_TRACE("LOOM_MAPPING_MUTATION_SEED=" + std::to_string(seed) + " reruns this case: examples/" + name + " with\n" + changed);
    const Generated g = generate(name, text);
    EXPECT_TRUE(g.internal.empty()) << g.internal;
    if (!g.checked) {
      // The checker's diagnostics, rendered as file:line:col: error: ...
      EXPECT_TRUE(std::regex_search(g.diagnostics, std::regex(R"(:\d+:\d+: error: )"))) << g.diagnostics;
      ++refused;
    } else if (g.error) {
      EXPECT_TRUE(g.error->loc.valid()) << "a diagnostic without a location: " << g.error->message;
      ++refused;
    } else if (g.internal.empty()) {
      EXPECT_TRUE(g.artifact.has_value());
      ++compiled;
    }
  }
  std::printf("  %zu mutated mappings: %d compiled, %d refused with a located diagnostic\n", seeds.size(), compiled, refused);
}

}  // namespace
}  // namespace loom::codegen_test
