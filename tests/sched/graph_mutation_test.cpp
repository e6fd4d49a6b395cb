// Property: no scheduling graph crashes `loom schedule` or runs it past its budget. Each case
// takes one of examples/schedules/*.json and mutates one to three things the way a user editing a
// graph would (or a broken generator): a node's field set to another value (zero, negative, huge,
// fractional, a string, null, a list), an edge's field likewise, a node or edge removed, a node
// duplicated, an edge added (any distance), the op or the shape of a node changed, a top-level
// field replaced, a machine of the graph's own with one field so changed. Then the command line runs it (schedule_main, as `loom schedule G.json
// --time-limit 1 --groups-time-limit 0.5`, a third of the cases with --no-ws): it must exit 0 (a
// schedule, or a graph without one, reported) or 1 with a diagnostic, never 2 (an internal error,
// e.g. a schedule the validator rejects), and end within 30 times its limit. A failure prints the
// case's seed and the graph. LOOM_GRAPH_MUTATION_SEED=S reruns one case; LOOM_GRAPH_MUTATION_CASES=N
// runs N (default 24, about 15 s here). Found on 2026-12-05, by the Python form of this test: a
// time-indexed ILP of 8.7 million nonzeros built minutes past --time-limit 5, and --no-ws schedules
// over the memory capacity called internal errors (search_test, cli_test).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sched/cli.h"

namespace loom::sched {
namespace {

using nlohmann::json;

std::vector<json> example_graphs() {
  std::vector<json> out;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(LOOM_SCHED_EXAMPLES))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) out.push_back(json::parse(std::ifstream(f)));
  return out;
}

json any_value(std::mt19937_64& r) {
  const std::vector<json> values = {0, -1, 1, 2, 3, 7, 64, 1000, 1000000000, 4611686018427387904LL, -9223372036854775807LL,
                                    0.5, -0.5, 1e308, "x", nullptr, true, json::array(), json::object(), json::array({1}),
                                    json::array({0, 0, 0})};
  return values[r() % values.size()];
}

template <class T>
const T& pick(std::mt19937_64& r, const std::vector<T>& v) {
  return v[r() % v.size()];
}

bool list_of_objects(const json& j) {
  if (!j.is_array()) return false;
  for (const json& x : j)
    if (!x.is_object()) return false;
  return true;
}

json mutate(std::mt19937_64& r, json g, std::string& what) {
  const int changes = 1 + static_cast<int>(r() % 3);
  for (int c = 0; c < changes; ++c) {
    const bool nodes_ok = g.contains("nodes") && list_of_objects(g["nodes"]) && !g["nodes"].empty();
    const bool edges_ok = g.contains("edges") && list_of_objects(g["edges"]) && !g["edges"].empty();
    const int kind = static_cast<int>(r() % 11);
    if (kind == 0 && nodes_ok) {
      json& n = g["nodes"][r() % g["nodes"].size()];
      std::vector<std::string> keys = {"regs", "smem", "shape", "op", "unit", "cycles"};
      for (auto it = n.begin(); it != n.end(); ++it) keys.push_back(it.key());
      const std::string k = pick(r, keys);
      n[k] = any_value(r);
      what += " node." + k + "=" + n[k].dump();
    } else if (kind == 1 && edges_ok) {
      json& e = g["edges"][r() % g["edges"].size()];
      const std::string k = pick(r, std::vector<std::string>{"from", "to", "distance", "delay"});
      e[k] = any_value(r);
      what += " edge." + k + "=" + e[k].dump();
    } else if (kind == 2 && nodes_ok) {
      g["nodes"].erase(r() % g["nodes"].size());
      what += " node removed";
    } else if (kind == 3 && nodes_ok) {
      g["nodes"].push_back(g["nodes"][r() % g["nodes"].size()]);
      what += " node duplicated";
    } else if (kind == 4 && nodes_ok) {
      const json& a = g["nodes"][r() % g["nodes"].size()];
      const json& b = g["nodes"][r() % g["nodes"].size()];
      if (!g.contains("edges") || !g["edges"].is_array()) g["edges"] = json::array();
      const int distance = pick(r, std::vector<int>{0, 0, 1, 2, 5, 8, 64});
      g["edges"].push_back({{"from", a.contains("name") ? a["name"] : json("x")},
                            {"to", b.contains("name") ? b["name"] : json("x")},
                            {"distance", distance}});
      what += " edge added (distance " + std::to_string(distance) + ")";
    } else if (kind == 5) {
      const std::string k = pick(r, std::vector<std::string>{"nodes", "edges", "machine", "name"});
      g[k] = r() % 2 ? any_value(r) : json(pick(r, std::vector<std::string>{"blackwell", "hopper", "nope"}));
      what += " " + k + "=" + g[k].dump();
    } else if (kind == 6 && nodes_ok) {
      json& n = g["nodes"][r() % g["nodes"].size()];
      n["op"] = pick(r, std::vector<std::string>{"tma_load", "gemm", "exp", "alu", "rowmax", "convert", "bogus"});
      what += " node.op=" + n["op"].dump();
    } else if (kind == 7 && nodes_ok) {
      json& n = g["nodes"][r() % g["nodes"].size()];
      n["shape"] = json::array();
      for (int i = static_cast<int>(r() % 5); i > 0; --i) n["shape"].push_back(pick(r, std::vector<long long>{0, 1, 7, 64, 128, 256, 1000000}));
      what += " node.shape=" + n["shape"].dump();
    } else if (kind == 8 && edges_ok) {
      g["edges"].erase(r() % g["edges"].size());
      what += " edge removed";
    } else if (kind == 10) {  // a machine of the graph's own: the base model with one field changed
      const std::string k = pick(r, std::vector<std::string>{"warps", "reg_limit", "reg_file", "cross_warp", "units", "memories", "ops"});
      g["machine"] = {{"base", pick(r, std::vector<std::string>{"hopper", "blackwell"})}, {k, any_value(r)}};
      what += " machine=" + g["machine"].dump();
    } else if (kind == 9 && nodes_ok) {
      json& n = g["nodes"][r() % g["nodes"].size()];
      if (!n.empty()) {
        const std::string k = n.begin().key();
        n.erase(k);
        what += " node." + k + " removed";
      }
    }
  }
  return g;
}

TEST(GraphMutationProperty, NoGraphCrashesOrOverrunsTheScheduler) {
  const std::vector<json> graphs = example_graphs();
  ASSERT_FALSE(graphs.empty());
  std::vector<uint64_t> seeds;
  if (const char* s = std::getenv("LOOM_GRAPH_MUTATION_SEED")) {
    seeds.push_back(std::strtoull(s, nullptr, 10));
  } else {
    const char* n = std::getenv("LOOM_GRAPH_MUTATION_CASES");
    const int cases = n ? std::atoi(n) : 24;
    std::mt19937_64 base(20261205);
    for (int i = 0; i < cases; ++i) seeds.push_back(base());
  }
  const double limit = 1.0;
  for (const uint64_t seed : seeds) {
    std::mt19937_64 r(seed);
    std::string what;
    const json g = mutate(r, graphs[r() % graphs.size()], what);
    const bool no_ws = r() % 3 == 0;
    const std::string path = testing::TempDir() + "graph_mutation_" + std::to_string(seed) + ".json";
    std::ofstream(path) << g.dump();
    std::vector<std::string> args = {"schedule", path, "--time-limit", "1", "--groups-time-limit", "0.5"};
    if (no_ws) args.push_back("--no-ws");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    const auto start = std::chrono::steady_clock::now();
    int rc = -1;
    try {
      rc = schedule_main(static_cast<int>(argv.size()), argv.data());
    } catch (const std::exception& e) {
      rc = -2;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string out = testing::internal::GetCapturedStdout();
    const std::string err = testing::internal::GetCapturedStderr();
    SCOPED_TRACE("LOOM_GRAPH_MUTATION_SEED=" + std::to_string(seed) + " reruns this case:" + what + (no_ws ? " (--no-ws)" : "") +
                 "\ngraph: " + g.dump());
    EXPECT_TRUE(rc == 0 || (rc == 1 && err.find("error:") != std::string::npos)) << "exit " << rc << "\n" << err << out.substr(0, 2000);
    EXPECT_LT(seconds, 30 * limit) << "ran " << seconds << " s past a " << limit << " s limit";
    std::filesystem::remove(path);
  }
}

}  // namespace
}  // namespace loom::sched
